// The Clairvoyant entry points: implementation choice, conversion to a papcoll schedule and the
// registry generator.
#include "schedule/clairvoyant/clairvoyant.hpp"

#include <algorithm>
#include <iterator>
#include <stdexcept>

#include "schedule/arrival_key.hpp"
#include "schedule/clairvoyant/clock.hpp"
#include "schedule/clairvoyant/finish_rounds.hpp"
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

void emit_schedule(const Result& r, ScheduleSink& out) {
  // Not paced (docs/algorithms.md, "Paced sends"): with arrivals spread over many rounds pacing
  // made it up to 23 % slower in SMPI (and up to 27 % faster with one late process).
  for (size_t k = 0; k < r.round_starts.size(); ++k) {
    if (k > 0 && r.round_starts[k].round <= r.round_starts[k - 1].round)
      throw std::logic_error("clairvoyant: transfers out of round order");
    const size_t end = k + 1 < r.round_starts.size() ? r.round_starts[k + 1].first
                                                     : r.transfers.size();
    for (size_t i = r.round_starts[k].first; i < end; ++i) {
      const Transfer& t = r.transfers[i];
      if (!out.wants(t.from) && !out.wants(t.to)) continue;
      const int seg = static_cast<int>(t.segment);
      out.transfer(static_cast<int64_t>(k), t.from, t.to, BlockSet::range(seg, seg + 1),
                   t.copy ? Combine::copy : Combine::reduce);
    }
  }
}

Schedule to_schedule(const Instance& in, const Result& r) {
  Schedule s;
  s.collective = Collective::reduce;
  s.algorithm = "clairvoyant";
  s.p = in.p;
  s.root = in.root;
  s.blocks = in.segments;
  ScheduleSink sink(in.p, 0, in.p);
  emit_schedule(r, sink);
  s.ranks = std::move(sink).take();
  return s;
}

int64_t Result::round_of(size_t transfer) const {
  if (transfer >= transfers.size()) throw std::out_of_range("clairvoyant: no such transfer");
  const auto it = std::upper_bound(round_starts.begin(), round_starts.end(), transfer,
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

void generate(const GeneratorInput& in, ScheduleSink& out) {
  const Instance c = instance_of(in);
  Impl impl = default_impl(c);
  if (!in.impl.empty() && !parse_impl(in.impl, &impl))
    throw std::invalid_argument("clairvoyant: unknown implementation '" + in.impl +
                                "' (linear, pairing, segtree)");
  emit_schedule(run(impl, c), out);
}

std::string arrival_key(const GeneratorInput& in) {
  const Clock clk = make_clock(instance_of(in));
  std::string key;
  append_key(key, clk.k0);
  append_key(key, clk.f);
  return key;
}

}  // namespace papcoll::clairvoyant

namespace papcoll {

void clairvoyant_reduce_schedule(const GeneratorInput& in, ScheduleSink& out) {
  clairvoyant::generate(in, out);
}

std::string clairvoyant_arrival_key(const GeneratorInput& in) {
  return clairvoyant::arrival_key(in);
}

// The simulation itself is the estimate: round R of the greedy algorithm is [R d, (R + 1) d) after
// the earliest arrival (clock.hpp), so a process finishes one round after its last transfer. It
// costs as much as generating the schedule, which is why the API keeps this estimate with the
// schedule in the communicator's cache (schedule_cache.hpp).
double clairvoyant_reduce_generation_cost(const GeneratorInput& in) {
  // predict's simulation (finish_rounds) and the generator's, which lists every transfer.
  const clairvoyant::Instance c = clairvoyant::instance_of(in);
  return 2 * clairvoyant::simulation_seconds(c.p, c.segments);
}

double clairvoyant_reduce_predict(const GeneratorInput& in) {
  const clairvoyant::Instance c = clairvoyant::instance_of(in);
  const std::shared_ptr<const clairvoyant::FinishRounds> f = clairvoyant::finish_rounds(c);
  std::vector<double> a = c.arrivals;
  if (static_cast<int>(a.size()) != c.p) a.assign(static_cast<size_t>(c.p), 0.0);
  const double first = *std::min_element(a.begin(), a.end());
  double sum = 0;
  for (int x = 0; x < c.p; ++x) {
    const int64_t last = f->last_round[static_cast<size_t>(x)];
    sum += last < 0 ? 0 : first + static_cast<double>(last + 1) * c.round_time - a[x];
  }
  return sum / c.p;
}

}  // namespace papcoll
