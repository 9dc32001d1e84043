// Late-fold reduce (docs/algorithms.md, "late-fold"): the reduce counterpart of the late-fold
// all-reduce. The early group E reduces while the late ranks compute, and the late ranks' data
// makes one pass to the root:
//
//  - root early (in E): E reduces to the root with Clairvoyant (Proficz & Ocetkiewicz's greedy on
//    E's arrival times, late_fold.hpp "early_reduce"), and the late ranks stream their data along
//    a chain in arrival order into the root, block by block;
//  - root late: E reduces the same way to its earliest rank, the collector; the other late ranks'
//    chain streams into the collector, which hands each block on to the root in the next round;
//  - no late ranks: Clairvoyant over all ranks;
//  - on one node (in.cost.shared_memory): flat, see flat_reduce_in_arrival_order.
//
// How many of the last ranks in arrival order count as late (0..8) is chosen by the cost model's
// estimate on the plan's quantised arrivals (late_fold.hpp), so the schedule depends on the
// arrivals only through the plan.
#include <algorithm>
#include <limits>

#include "schedule/clairvoyant/finish_rounds.hpp"
#include "schedule/estimate.hpp"
#include "schedule/late_fold/late_fold.hpp"
#include "schedule/reduce_generators.hpp"

namespace papcoll {
namespace {

constexpr int kReduceMaxLate = 8;

// The cost model's mean elapsed time of the schedule with the last `late` ranks late: the early
// group's Clairvoyant as simulated (a process is done one round after its last transfer), then the
// chain's blocks one round apart into the root, or into the collector and on to the root
// (ReduceFoldTail).
double estimate_reduce_late(const GeneratorInput& in, const std::vector<int>& order,
                            const std::vector<double>& sim, const std::vector<double>& a,
                            int late) {
  const int p = in.p, root = reduce_root(in);
  const BlockRuns runs = late_fold_runs(in.blocks, p, false);
  const ReduceFoldLayout l = reduce_fold_layout(order, root, late);
  std::vector<double> finish(static_cast<size_t>(p));
  const EarlyReduce early = early_reduce_timing(in, runs, l.group, sim, a);
  for (size_t v = 0; v < l.group.size(); ++v) finish[l.group[v]] = early.done(static_cast<int>(v));
  ReduceFoldTail(l, runs, root, early.rounds).estimate(in, a, early.done(0), finish);
  return estimate::mean_elapsed(finish, a);
}

// The one-node form. Over the shared-memory transport a send is one copy into the sender's own
// segment and the sender does not wait for its reader, so the root's link is no bottleneck and
// the best reduce is flat: every other rank publishes its whole buffer once (block by block, so
// the root reduces a block while the rest is copied) and leaves, and the root reduces the ranks'
// data in arrival order (the plan's order): the early ranks' data while the late ones compute,
// the late data in one pass. Every block is sent once: one-version, as the transport needs.
void flat_reduce_in_arrival_order(const GeneratorInput& in, const std::vector<int>& order,
                                  ScheduleSink& out) {
  const int root = reduce_root(in);
  const BlockSet all = BlockSet::range(0, std::max(in.blocks, 1));
  int64_t round = 0;
  for (const int r : order) {
    if (r == root) continue;
    if (r >= out.first_rank() && r < out.last_rank()) out.send(r, round, root, all);
    if (root >= out.first_rank() && root < out.last_rank())
      out.recv(root, round, r, all, Combine::reduce);
    ++round;
  }
}

// The cost model's mean elapsed time of the flat form: a sender is done once it has copied its
// data, the root reduces each rank's data (gamma per byte) once it is copied, in arrival order. A
// copy costs half of beta per byte: beta is a message's time, and a message over the
// shared-memory BTL is copied twice, by the sender and by the receiver (docs/shared-memory.md).
double estimate_flat_reduce(const GeneratorInput& in, const std::vector<int>& order,
                            const std::vector<double>& a) {
  const int root = reduce_root(in);
  std::vector<double> finish(a);
  double t = a[root];
  for (const int r : order) {
    if (r == root) continue;
    finish[r] = a[r] + in.cost.beta / 2 * in.bytes;
    t = std::max(t, finish[r]) + in.cost.gamma * in.bytes;
  }
  finish[root] = t;
  return estimate::mean_elapsed(finish, a);
}

int chosen_reduce_late(const GeneratorInput& in, const LateFoldPlan& plan) {
  const int p = in.p;
  if (p < 2 || plan.prr.slot.back() == 0) return 0;
  int best = 0;
  double best_time = estimate_reduce_late(in, plan.prr.order, plan.quantised, plan.quantised, 0);
  for (int late = 1; late <= max_late(plan, kReduceMaxLate); ++late) {
    const double t = estimate_reduce_late(in, plan.prr.order, plan.quantised, plan.quantised, late);
    if (t < best_time) best = late, best_time = t;
  }
  return best;
}

}  // namespace

void late_fold_reduce_schedule(const GeneratorInput& in, ScheduleSink& out) {
  const int p = in.p, root = reduce_root(in);
  if (p == 1) return;
  const BlockRuns runs = late_fold_runs(in.blocks, p, false);
  auto one = [&](int b) { return runs.set(b); };
  const LateFoldPlan plan = late_fold_plan(in);
  if (in.cost.shared_memory) return flat_reduce_in_arrival_order(in, plan.prr.order, out);
  const int late = chosen_reduce_late(in, plan);
  const ReduceFoldLayout l = reduce_fold_layout(plan.prr.order, root, late);
  const EarlyReduce early = early_reduce(in, runs, l.group, plan.quantised);
  const ReduceFoldTail tail(l, runs, root, early.rounds);
  // The early ranks' reduce paced, as in late_fold_allreduce.cpp.
  out.set_paced_until(early.rounds, paced_send_bytes(in.cost));
  for (int r = out.first_rank(); r < out.last_rank(); ++r) {
    const auto it = std::find(l.group.begin(), l.group.end(), r);
    if (it != l.group.end())
      for (const EarlyReduce::Op& op : early.ops[it - l.group.begin()]) {
        if (op.send)
          out.send(r, op.round, op.peer, one(op.block));
        else
          out.recv(r, op.round, op.peer, one(op.block), op.copy ? Combine::copy : Combine::reduce);
      }
    tail.emit(r, out);
  }
}

std::string late_fold_reduce_arrival_key(const GeneratorInput& in) {
  // The one-node form reads less of the plan (the order only) but is told apart by the prefix.
  return (in.cost.shared_memory ? "flat:" : "") + late_fold_plan(in).prr.key();
}

double late_fold_reduce_generation_cost(const GeneratorInput& in) {
  if (in.p < 2 || in.cost.shared_memory) return 0;  // the one-node form is O(p)
  const LateFoldPlan plan = late_fold_plan(in);
  // chosen_reduce_late simulates the whole group and the group of each candidate count (none
  // when every rank is in the first slot); the generator the chosen one again with its transfers.
  const int candidates = plan.prr.slot.back() == 0 ? 0 : max_late(plan, kReduceMaxLate);
  return (candidates + 2) *
         clairvoyant::simulation_seconds(in.p, late_fold_runs(in.blocks, in.p, false).count());
}

double late_fold_reduce_predict(const GeneratorInput& in) {
  if (in.p == 1) return 0;
  const LateFoldPlan plan = late_fold_plan(in);
  if (in.cost.shared_memory)
    return estimate_flat_reduce(in, plan.prr.order, estimate::arrivals_of(in));
  return estimate_reduce_late(in, plan.prr.order, plan.quantised, estimate::arrivals_of(in),
                              chosen_reduce_late(in, plan));
}

}  // namespace papcoll
