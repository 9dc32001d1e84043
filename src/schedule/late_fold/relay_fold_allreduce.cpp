// Relay-fold all-reduce (docs/algorithms.md, "relay-fold"): late-fold's shape with an early phase
// that every rank plans for itself in O(n + log p), for the scale where late-fold's Clairvoyant
// early reduce (a global greedy simulation, O(p N) per rank for every new pattern) costs more than
// it saves. With the last L ranks in arrival order late (L = 1..8, chosen by the estimate):
//
//  1. The early group E reduces to its earliest rank, the relay, with Träff's round-optimal reduce
//     (the circulant broadcast run backwards, circulant_reduce.cpp) over E's positions in arrival
//     order: n - 1 + ceil(log2 |E|) rounds of one block, bandwidth-optimal, while the late ranks
//     compute.
//  2. Then late-fold's phases (FoldTail, late_fold.hpp): the late ranks' data streams through the
//     relay, which folds it in and broadcasts the result over E by Träff's circulant broadcast;
//     the last rank gets it back from the broadcast's idle senders. After the last arrival:
//     about n block rounds plus O(log p), one whole buffer out of the late rank and one in.
//
// L = 0 (nobody late enough to pay) is Rabenseifner's all-reduce, so balanced calls cost what
// Rabenseifner costs. Everything depends on the arrivals only through late-fold's plan (arrival
// order and chunk slots), which is the schedule-cache key.
#include <algorithm>
#include <limits>
#include <map>
#include <mutex>

#include "schedule/allreduce_generators.hpp"
#include "schedule/estimate.hpp"
#include "schedule/group_phase.hpp"
#include "schedule/late_fold/late_fold.hpp"
#include "schedule/reduce_generators.hpp"

namespace papcoll {
namespace {

constexpr int kRelayFoldMaxLate = 8;
// Fine blocks per logical block: the broadcast's first blocks are smaller (fold_runs' ramp).
constexpr int kRelayFoldPer = 4;

int ceil_log2_at_least_one(int p) { return std::max(ceil_log2_ranks(p), 1); }

BlockRuns relay_runs(const GeneratorInput& in, bool ramp_up) {
  return fold_runs(in.blocks, kRelayFoldPer, ceil_log2_at_least_one(in.p), ramp_up);
}

// The early phase's input: E's |E| positions, reduce to position 0, on the logical blocks.
GeneratorInput early_input(const GeneratorInput& in, int positions, const BlockRuns& runs) {
  GeneratorInput e;
  e.p = positions;
  e.blocks = runs.count();
  e.root = 0;
  e.cost = in.cost;
  e.bytes = in.bytes;
  return e;
}

// When the relay holds E's sum: the reversed broadcast's rounds, in lockstep from E's last
// arrival, one logical block sent and reduced each.
double relay_ready(const GeneratorInput& in, const LateFoldLayout& l, const BlockRuns& runs1,
                   const std::vector<double>& a) {
  double start = a[l.rank_at[0]];
  for (int r : l.rank_at) start = std::max(start, a[r]);
  const int positions = static_cast<int>(l.rank_at.size());
  if (positions < 2) return start;
  const RunClock clock = run_clock(in, runs1, true);
  return start + FoldCirculant(positions, runs1.count()).rounds() * clock.tail;
}

double estimate_relay_fold(const GeneratorInput& in, const std::vector<int>& order,
                           const std::vector<double>& a, int late) {
  const LateFoldLayout l = late_fold_layout(order, late);
  const BlockRuns runs = relay_runs(in, true), runs1 = relay_runs(in, false);
  const int positions = static_cast<int>(l.rank_at.size());
  const int64_t t1 = positions > 1 ? FoldCirculant(positions, runs1.count()).rounds() : 0;
  std::vector<double> finish(static_cast<size_t>(in.p)), has;
  FoldTail(l, runs, t1)
      .estimate(in, a, relay_ready(in, l, runs1, a), finish,
                estimate::keeping_finish_times() ? &has : nullptr);
  const double mean = estimate::mean_elapsed(finish, a);
  if (!has.empty()) estimate::keep_has(has);
  return mean;
}

// A lower bound of estimate_relay_fold, in O(p): no rank finishes before the relay holds the early
// sum and then the whole buffer has crossed the rank's link (every rank sends or receives every
// block of the result after that). With arrivals spread out (random lateness) the relay is ready
// so late that this rules every count of late ranks out, and the estimates themselves (1.3 ms at
// p = 512 for the eight counts) are not computed: `auto` weighs every new pattern on the call's
// path.
double relay_fold_bound(const GeneratorInput& in, const std::vector<int>& order,
                        const std::vector<double>& a, int late, const BlockRuns& runs1) {
  const double ready = relay_ready(in, late_fold_layout(order, late), runs1, a);
  const double stream = in.cost.beta * in.bytes;
  double sum = 0;
  for (double t : a) sum += std::max(t, ready) + stream - t;
  return sum / static_cast<double>(a.size());
}

int chosen_late(const GeneratorInput& in, const LateFoldPlan& plan) {
  if (in.p < 2 || plan.prr.slot.back() == 0) return 0;
  int best = 0;
  GeneratorInput balanced = in;
  balanced.arrivals = plan.quantised;
  double best_time = rabenseifner_allreduce_predict(balanced);
  const BlockRuns runs1 = relay_runs(in, false);
  for (int late = 1; late <= max_late(plan, kRelayFoldMaxLate); ++late) {
    if (relay_fold_bound(in, plan.prr.order, plan.quantised, late, runs1) >= best_time) continue;
    const double t = estimate_relay_fold(in, plan.prr.order, plan.quantised, late);
    if (t < best_time) best = late, best_time = t;
  }
  return best;
}

}  // namespace

void relay_fold_allreduce_schedule(const GeneratorInput& in, ScheduleSink& out) {
  if (in.p == 1) return;
  const LateFoldPlan plan = late_fold_plan(in);
  const int late = chosen_late(in, plan);
  if (late == 0) return rabenseifner_allreduce_schedule(in, out);
  const LateFoldLayout l = late_fold_layout(plan.prr.order, late);
  const BlockRuns runs = relay_runs(in, true), runs1 = relay_runs(in, false);
  const int positions = static_cast<int>(l.rank_at.size());
  int64_t t1 = 0;
  if (positions > 1) {
    std::vector<BlockSet> map(static_cast<size_t>(runs1.count()));
    for (int b = 0; b < runs1.count(); ++b) map[b] = runs1.set(b);
    const GeneratorInput e = early_input(in, positions, runs1);
    emit_phase(circulant_reduce_schedule, e, GroupPhase{.members = l.rank_at, .block_map = map},
               out);
    t1 = FoldCirculant(positions, runs1.count()).rounds();
  }
  const FoldTail tail(l, runs, t1);
  // Every round paced (docs/algorithms.md, "Paced sends"): the early ranks' reduce runs among
  // ranks the plan has present, the chain's hops go to ranks that arrive with or after their
  // senders, and the broadcast runs once the root is there. Unpaced, a chain fell out of lockstep
  // in SMPI: k-late:4 at gige-128 took 2.29 delta after the last arrival, network only, against
  // 1.28 paced; one rank late 1.25 against 1.21.
  out.set_paced_until(std::numeric_limits<int64_t>::max(), paced_send_bytes(in.cost));
  for (int r = out.first_rank(); r < out.last_rank(); ++r) tail.emit(in, r, out);
}

std::string relay_fold_allreduce_arrival_key(const GeneratorInput& in) {
  return late_fold_plan(in).prr.key();
}

double relay_fold_allreduce_predict(const GeneratorInput& in) {
  if (in.p == 1) return 0;
  const LateFoldPlan plan = late_fold_plan(in);
  const int late = chosen_late(in, plan);
  if (late == 0) return rabenseifner_allreduce_predict(in);
  return estimate_relay_fold(in, plan.prr.order, estimate::arrivals_of(in), late);
}

int relay_fold_blocks(const GeneratorInput& in) {
  // The broadcast's (n + q)(alpha + beta bytes / n) is least at n = sqrt(q beta bytes / alpha)
  // logical blocks (pipeline_blocks; one when cores are shared), each kRelayFoldPer fine ones.
  const int q = ceil_log2_at_least_one(in.p);
  return kRelayFoldPer * pipeline_blocks(in.bytes, q, in.cost, kBroadcastBlockFactor);
}

}  // namespace papcoll
