// Relay-fold reduce (docs/algorithms.md, "relay-fold"): the reduce counterpart of the relay-fold
// all-reduce, late-fold's reduce with Träff's round-optimal reduce (circulant_reduce.cpp) as the
// early phase, so that every rank plans its own steps in O(n + log p) after the arrival sort. The
// early group reduces to the root if the root is early, else to its earliest rank (the
// collector); the late ranks' data then streams along a chain in arrival order into that rank,
// which hands each block on to a late root (ReduceFoldTail, late_fold.hpp). With nobody late
// enough it is Rabenseifner's reduce.
#include <algorithm>
#include <limits>

#include "schedule/estimate.hpp"
#include "schedule/group_phase.hpp"
#include "schedule/late_fold/late_fold.hpp"
#include "schedule/reduce_generators.hpp"

namespace papcoll {
namespace {

constexpr int kRelayFoldReduceMaxLate = 8;

// The circulant phase's logical blocks: runs of the call's blocks, as many as the circulant
// reduce of the whole vector would use (the call's block count is a multiple of that, at least
// p, so that the Rabenseifner fallback halves whole blocks).
BlockRuns relay_reduce_runs(const GeneratorInput& in) {
  const int logical =
      pipeline_blocks(in.bytes, ceil_log2_ranks(in.p) - 1, in.cost, kBroadcastBlockFactor);
  return fold_runs(in.blocks, std::max(1, in.blocks / std::max(1, logical)), 1, false);
}

// The circulant reduce over the group (positions in arrival order, group[0] the sink), in
// lockstep from the group's last arrival: when position v is done, and when the sink is.
double early_timing(const GeneratorInput& in, const std::vector<int>& group, int blocks,
                    const std::vector<double>& a, std::vector<double>& finish) {
  const int m = static_cast<int>(group.size());
  if (m < 2) {
    finish[group[0]] = a[group[0]];
    return a[group[0]];
  }
  const FoldCirculant c(m, blocks);
  const double round = in.cost.alpha + (in.cost.beta + in.cost.gamma) *
                                           estimate::blocks_bytes(in, 1.0 * in.blocks / blocks);
  const double slots = c.last_real_round() + 1, scale = reduce_rounds(c) / slots;
  // Rounds in lockstep from the latest arrival, less the slack of a position whose first op
  // (the reversal of its last forward one) comes late: with few blocks a leaf of the reversed
  // tree may arrive that much later without holding anyone up. Exact slack at up to 512
  // positions; at scale every position is busy to the pipeline's end and has next to none.
  double start = a[group[0]];
  for (int v = 1; v < m; ++v) {
    const double slack = m <= 512 ? (slots - 1 - c.span(v).last) * scale * round : 0.0;
    start = std::max(start, a[group[v]] - std::max(0.0, slack));
  }
  finish[group[0]] = start + reduce_rounds(c) * round;
  // A position leaves with its last reversed round, which reverses its first forward one; the
  // mean over evenly spaced positions stands for all of them at scale (see FoldTail::estimate).
  const int sampled = std::min(m - 1, 256);
  double sum = 0;
  for (int i = 0; i < sampled; ++i) {
    const int v = 1 + static_cast<int>(static_cast<int64_t>(i) * (m - 1) / sampled);
    sum += std::max(1.0, (slots - std::max(c.span(v).first, 0)) * scale) * round;
  }
  for (int v = 1; v < m; ++v) finish[group[v]] = std::max(a[group[v]], start + sum / sampled);
  return finish[group[0]];
}

double estimate_relay_fold_reduce(const GeneratorInput& in, const std::vector<int>& order,
                                  const std::vector<double>& a, int late) {
  const int root = reduce_root(in);
  const BlockRuns runs = relay_reduce_runs(in);
  const ReduceFoldLayout l = reduce_fold_layout(order, root, late);
  std::vector<double> finish(static_cast<size_t>(in.p));
  const double ready = early_timing(in, l.group, runs.count(), a, finish);
  const int m = static_cast<int>(l.group.size());
  const int64_t t1 = m > 1 ? FoldCirculant(m, runs.count()).rounds() : 0;
  ReduceFoldTail(l, runs, root, t1).estimate(in, a, ready, finish);
  return estimate::mean_elapsed(finish, a);
}

int relay_chosen_reduce_late(const GeneratorInput& in, const LateFoldPlan& plan) {
  if (in.p < 2 || plan.prr.slot.back() == 0) return 0;
  int best = 0;
  GeneratorInput balanced = in;
  balanced.arrivals = plan.quantised;
  double best_time = rabenseifner_reduce_predict(balanced);
  for (int late = 1; late <= max_late(plan, kRelayFoldReduceMaxLate); ++late) {
    const double t = estimate_relay_fold_reduce(in, plan.prr.order, plan.quantised, late);
    if (t < best_time) best = late, best_time = t;
  }
  return best;
}

}  // namespace

void relay_fold_reduce_schedule(const GeneratorInput& in, ScheduleSink& out) {
  const int p = in.p, root = reduce_root(in);
  if (p == 1) return;
  const LateFoldPlan plan = late_fold_plan(in);
  const int late = relay_chosen_reduce_late(in, plan);
  if (late == 0) return rabenseifner_reduce_schedule(in, out);
  const BlockRuns runs = relay_reduce_runs(in);
  const ReduceFoldLayout l = reduce_fold_layout(plan.prr.order, root, late);
  const int m = static_cast<int>(l.group.size());
  int64_t t1 = 0;
  if (m > 1) {
    GeneratorInput e;
    e.p = m;
    e.blocks = runs.count();
    e.root = 0;
    e.cost = in.cost;
    e.bytes = in.bytes;
    std::vector<BlockSet> map(static_cast<size_t>(runs.count()));
    for (int b = 0; b < runs.count(); ++b) map[b] = runs.set(b);
    emit_phase(circulant_reduce_schedule, e, GroupPhase{.members = l.group, .block_map = map}, out);
    t1 = FoldCirculant(m, runs.count()).rounds();
  }
  const ReduceFoldTail tail(l, runs, root, t1);
  // Every round paced, as the all-reduce's (docs/algorithms.md, "Paced sends"): the early ranks'
  // reduce runs among ranks the plan has present, the chain's hops go to ranks that arrive with
  // or after their senders, and the sink's hand-over to a late root waits for the root, its last
  // step. Unpaced, one rank late at gige-128 took 52.0 +- 13.1 ms over 4 iterations, paced
  // 39.2 +- 0.05 (gige-512: 50.2 +- 11.8 against 40.8 +- 0.1). Synchronous from 16 KiB, not
  // from alpha / beta as the all-reduce: every sender here receives in the rounds before it sends
  // (no broadcast root runs ahead), and synchronous 8.5 KB blocks only added waits: gige-1024,
  // one rank 100 ms late, 43.00 ms against 40.80 (the library's 67.83).
  out.set_paced_until(std::numeric_limits<int64_t>::max(), kPacedBytesMost);
  for (int r = out.first_rank(); r < out.last_rank(); ++r) tail.emit(r, out);
}

int relay_fold_reduce_blocks(const GeneratorInput& in) {
  const int logical =
      pipeline_blocks(in.bytes, ceil_log2_ranks(in.p) - 1, in.cost, kBroadcastBlockFactor);
  return logical * std::max(1, (in.p + logical - 1) / logical);
}

std::string relay_fold_reduce_arrival_key(const GeneratorInput& in) {
  return late_fold_plan(in).prr.key();
}

double relay_fold_reduce_predict(const GeneratorInput& in) {
  if (in.p == 1) return 0;
  const LateFoldPlan plan = late_fold_plan(in);
  const int late = relay_chosen_reduce_late(in, plan);
  if (late == 0) return rabenseifner_reduce_predict(in);
  return estimate_relay_fold_reduce(in, plan.prr.order, estimate::arrivals_of(in), late);
}

}  // namespace papcoll
