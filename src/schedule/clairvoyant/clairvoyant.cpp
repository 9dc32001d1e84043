// The Clairvoyant entry points: implementation choice, conversion to a papcoll schedule and the
// registry generator.
#include "schedule/clairvoyant/clairvoyant.hpp"

#include <algorithm>
#include <iterator>
#include <stdexcept>

#include "schedule/reduce_generators.hpp"
#include "schedule/registry.hpp"

namespace papcoll::clairvoyant {

const char* impl_name(Impl i) {
  switch (i) {
    case Impl::linear: return "linear";
    case Impl::pairing: return "pairing";
    case Impl::segtree: return "segtree";
  }
  return "?";
}

bool parse_impl(std::string_view s, Impl* out) {
  for (Impl i : {Impl::linear, Impl::pairing, Impl::segtree})
    if (s == impl_name(i)) {
      *out = i;
      return true;
    }
  return false;
}

Result run(Impl impl, const Instance& in) {
  switch (impl) {
    case Impl::linear: return run_linear(in);
    case Impl::pairing: return run_pairing(in);
    case Impl::segtree: return run_segtree(in);
  }
  throw std::invalid_argument("clairvoyant: unknown implementation");
}

Impl default_impl(const Instance&) {
  // The segment tree is never far behind on small inputs and the only one whose run time does not
  // grow with (arrival spread / round time) (Sect. 5.1); see docs/algorithms.md for the numbers.
  return Impl::segtree;
}

Schedule to_schedule(const Instance& in, const Result& r) {
  Schedule s;
  s.collective = Collective::reduce;
  s.algorithm = "clairvoyant";
  s.p = in.p;
  s.root = in.root;
  s.blocks = in.segments;
  s.ranks.resize(static_cast<size_t>(in.p));
  for (int q = 0; q < in.p; ++q) s.ranks[q].rank = q;
  // Rounds come in ascending order, so each rank's steps are appended in order.
  int compact = -1;
  auto step_of = [&](int rank) -> Step& {
    std::vector<Step>& steps = s.ranks[rank].steps;
    if (steps.empty() || steps.back().round != compact) steps.push_back(Step{compact, {}});
    return steps.back();
  };
  for (size_t k = 0; k < r.round_starts.size(); ++k) {
    if (k > 0 && r.round_starts[k].round <= r.round_starts[k - 1].round)
      throw std::logic_error("clairvoyant: transfers out of round order");
    ++compact;
    const size_t end = k + 1 < r.round_starts.size() ? r.round_starts[k + 1].first
                                                     : r.transfers.size();
    for (size_t i = r.round_starts[k].first; i < end; ++i) {
      const Transfer& t = r.transfers[i];
      const int seg = static_cast<int>(t.segment);
      step_of(t.from).ops.push_back(Op{OpKind::send, t.to, {seg}, Combine::none});
      step_of(t.to).ops.push_back(
          Op{OpKind::recv, t.from, {seg}, t.copy ? Combine::copy : Combine::reduce});
    }
  }
  return s;
}

int64_t Result::round_of(size_t transfer) const {
  if (transfer >= transfers.size()) throw std::out_of_range("clairvoyant: no such transfer");
  const auto it = std::upper_bound(
      round_starts.begin(), round_starts.end(), transfer,
      [](size_t i, const RoundStart& s) { return i < s.first; });
  return std::prev(it)->round;
}

Instance instance_of(const GeneratorInput& in) {
  Instance c;
  c.p = in.p;
  c.segments = in.blocks;
  c.root = in.root < 0 ? 0 : in.root;
  c.arrivals = in.arrivals;
  c.round_time = in.round_time > 0 ? in.round_time : block_round_time(in);
  return c;
}

Schedule generate(const GeneratorInput& in) {
  const Instance c = instance_of(in);
  Impl impl = default_impl(c);
  if (!in.impl.empty() && !parse_impl(in.impl, &impl))
    throw std::invalid_argument("clairvoyant: unknown implementation '" + in.impl +
                                "' (linear, pairing, segtree)");
  return to_schedule(c, run(impl, c));
}

}  // namespace papcoll::clairvoyant

namespace papcoll {

Schedule clairvoyant_reduce_schedule(const GeneratorInput& in) { return clairvoyant::generate(in); }

}  // namespace papcoll
