// Segmented linear pipeline all-reduce and its sorted variant SLT (Proficz, Fig. 5). Block s
// travels order[0] -> ... -> order[p-1] being reduced (hop id -> id+1 in round id + s), then
// order[p-1] -> order[0] (round p-1+s) -> ... -> order[p-2] being copied (hop id -> id+1 in round
// p + s + id); consecutive blocks follow one round apart. SLT only changes the order: ranks sorted
// by arrival, so late ranks join the pipeline last (Fig. 6b). A rank's part needs only its position
// and its two neighbours in the order.
#include <algorithm>
#include <cstdint>
#include <numeric>

#include "schedule/allreduce_generators.hpp"
#include "schedule/arrival_key.hpp"
#include "schedule/estimate.hpp"

namespace papcoll {
namespace {

// One op of the per-block pattern: block s moves in round offset + s.
struct BlockOp {
  int64_t offset;
  bool send;
  int peer;
  Combine combine;
};

void pipeline(const GeneratorInput& in, const std::vector<int>& order, ScheduleSink& out) {
  const int p = in.p;
  if (p == 1) return;
  std::vector<int> position(static_cast<size_t>(p));
  for (int id = 0; id < p; ++id) position[order[id]] = id;
  for (int r = out.first_rank(); r < out.last_rank(); ++r) {
    const int id = position[r];
    const int prev = order[(id + p - 1) % p], next = order[(id + 1) % p];
    // The rank's ops for block s, in the order they are listed here when two share a round.
    std::vector<BlockOp> pattern;
    if (id > 0) pattern.push_back({id - 1, false, prev, Combine::reduce});
    if (id + 1 < p) pattern.push_back({id, true, next, Combine::none});
    if (id == p - 1) pattern.push_back({p - 1, true, next, Combine::none});  // next: order[0]
    if (id == 0) pattern.push_back({p - 1, false, prev, Combine::copy});
    if (id > 0 && id + 1 < p) pattern.push_back({p + id - 1, false, prev, Combine::copy});
    if (id + 2 < p) pattern.push_back({p + id, true, next, Combine::none});
    // Round t holds block t - offset of each pattern op: emitted in round order, and within a
    // round by increasing block (larger offset first), then by the listing above, which is the
    // order the other end of every message derives too.
    std::vector<size_t> by_offset(pattern.size());
    std::iota(by_offset.begin(), by_offset.end(), size_t{0});
    std::stable_sort(by_offset.begin(), by_offset.end(),
                     [&](size_t a, size_t b) { return pattern[a].offset > pattern[b].offset; });
    out.reserve(r, pattern.size() * static_cast<size_t>(in.blocks));
    int64_t first = pattern.front().offset, last = pattern.front().offset;
    for (const BlockOp& op : pattern) {
      first = std::min(first, op.offset);
      last = std::max(last, op.offset);
    }
    for (int64_t t = first; t < last + in.blocks; ++t)
      for (size_t k : by_offset) {
        const BlockOp& op = pattern[k];
        const int64_t s = t - op.offset;
        if (s < 0 || s >= in.blocks) continue;
        const BlockSet block = BlockSet::range(static_cast<int>(s), static_cast<int>(s) + 1);
        if (op.send)
          out.send(r, t, op.peer, block);
        else
          out.recv(r, t, op.peer, block, op.combine);
      }
  }
}

}  // namespace

void linear_pipeline_allreduce_schedule(const GeneratorInput& in, ScheduleSink& out) {
  std::vector<int> order(static_cast<size_t>(in.p));
  std::iota(order.begin(), order.end(), 0);
  pipeline(in, order, out);
}

void slt_allreduce_schedule(const GeneratorInput& in, ScheduleSink& out) {
  pipeline(in, arrival_order(in.p, in.arrivals), out);
}

std::string slt_arrival_key(const GeneratorInput& in) {
  std::string key;
  append_key(key, arrival_order(in.p, in.arrivals));
  return key;
}

// The pipeline as a lattice of rounds of tau (block_round_time) each: a rank's round waits for its
// own previous round and its predecessor's, and a chain of transfers advances one rank per round,
// so a position finishes tau x (its last round + 1 - r) after the arrival of any rank whose first
// round is r (position i > 0 first receives in round i - 1): every arrival reaches every position
// through the pipeline or the copy that wraps from the last position to the first. With more blocks
// than ranks a position sends a reduced block and a copied one in each of B - p rounds, one after
// the other through its port: each such round takes a message longer.
double slt_allreduce_predict(const GeneratorInput& in) {
  const int p = in.p;
  if (p == 1) return 0;
  const std::vector<int> order = arrival_order(p, in.arrivals);
  const std::vector<double> a = estimate::arrivals_of(in);
  const double tau = block_round_time(in);
  const int64_t b = in.blocks;
  double latest = a[order[0]];
  for (int i = 1; i < p; ++i) latest = std::max(latest, a[order[i]] - tau * (i - 1));
  const double message = in.cost.alpha + in.cost.beta * estimate::blocks_bytes(in, 1);
  latest += static_cast<double>(std::max<int64_t>(0, b - p)) * message;
  std::vector<double> finish(static_cast<size_t>(p));
  for (int id = 0; id < p; ++id) {
    int64_t last;  // the position's last round (the pattern above)
    if (p == 2)
      last = id == 0 ? b : b - 1 + 1;
    else if (id == p - 1)
      last = p + b - 2;
    else if (id + 2 < p)
      last = p + b - 1 + id;
    else
      last = p + b + id - 2;
    finish[order[id]] = latest + tau * static_cast<double>(last + 1);
  }
  return estimate::mean_elapsed(finish, a);
}

}  // namespace papcoll
