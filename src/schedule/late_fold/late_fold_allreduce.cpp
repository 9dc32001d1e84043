// Late-fold all-reduce (docs/algorithms.md, "late-fold"): an all-reduce that finishes about one
// whole-buffer message after the last rank arrives. Not from a paper; the idea of reduce-scattering
// among the early ranks while a straggler computes is StragglAR's (Devraj et al., arXiv
// 2505.23523), the schedule is ours (late_fold.hpp):
//
//  1. The early group E reduce-scatters while it waits: the time reversal of the circulant
//     broadcast over {root} + E, root's transfers left out, so block b of E's sum ends at N_b.
//  2. The late ranks but the last (the chain, in arrival order) stream their sum block by block
//     into the last one, the root.
//  3. The root sends block b to N_b in round b, N_b folds it in, and the circulant broadcast
//     carries the result to every position: n - 1 + O(log p) block rounds after the root starts.
//     The rank whose send in a round would go to the root (the schedule sends nothing there) hands
//     the root, or the chain's head when there is a chain, the result block by block instead.
//  4. The other chain ranks (and the root when there is a chain) get the whole result at the end
//     from an early rank each (their receive port was busy with the chain's stream).
//
// Which ranks count as late (the last 1..8 in arrival order) is chosen by the cost model's estimate
// on the quantised arrivals, and when PRR is estimated at least as fast (balanced or nearly
// balanced arrivals, a delay too short to hide the reduce-scatter) the schedule is PRR's, which is
// the ring when all arrive together. All of it depends on the arrivals only through the plan
// (arrival order and chunk slots).
//
// On one node (in.cost.shared_memory) the schedule is flat instead
// (flat_allreduce_in_arrival_order).
#include <algorithm>
#include <limits>

#include "schedule/allreduce_generators.hpp"
#include "schedule/clairvoyant/finish_rounds.hpp"
#include "schedule/estimate.hpp"
#include "schedule/late_fold/late_fold.hpp"

namespace papcoll {
namespace {

constexpr int kAllreduceMaxLate = 8;

// PRR as late-fold runs it: on the call's blocks when they are whole chunks (PRR's slots are then
// the plan's), else on the call's input as it is.
GeneratorInput prr_input(const GeneratorInput& in) {
  GeneratorInput g = in;
  if (in.blocks % in.p == 0) g.blocks = in.p;
  return g;
}

// The cost model's mean elapsed time of the late-fold schedule with the last `late` ranks late,
// estimated from its structure (estimate.hpp): the early reduce (Clairvoyant's simulation on the
// plan's arrivals) leaves the early sum at the relay, then FoldTail's phases.
double estimate_allreduce_late(const GeneratorInput& in, const std::vector<int>& order,
                               const std::vector<double>& sim, const std::vector<double>& a,
                               int late) {
  const int p = in.p;
  const BlockRuns runs = late_fold_runs(in.blocks, p, true);
  const LateFoldLayout l = late_fold_layout(order, late);
  const int positions = static_cast<int>(l.rank_at.size());
  const BlockRuns runs1 = late_fold_runs(in.blocks, p, false);
  const EarlyReduce early = early_reduce_timing(in, runs1, l.rank_at, sim, a);
  const double t1_end = positions > 1 ? early.done(0) : a[l.rank_at[0]];
  std::vector<double> finish(static_cast<size_t>(p)), has;
  FoldTail(l, runs, early.rounds)
      .estimate(in, a, t1_end, finish, estimate::keeping_finish_times() ? &has : nullptr);
  const double mean = estimate::mean_elapsed(finish, a);
  if (!has.empty()) estimate::keep_has(has);
  return mean;
}

// The number of late ranks the schedule treats as late, 0 for PRR: the least estimate on the
// plan's arrivals.
int chosen_allreduce_late(const GeneratorInput& in, const LateFoldPlan& plan) {
  const int p = in.p;
  if (p < 2 || plan.prr.slot.back() == 0) return 0;
  GeneratorInput prr = prr_input(in);
  prr.arrivals = prr.blocks == p ? plan.quantised : [&] {
    const PrrPlan own = prr_plan(prr);
    const double tau = prr_slot_time(prr);
    std::vector<double> q(static_cast<size_t>(p));
    for (int i = 0; i < p; ++i) q[own.order[i]] = static_cast<double>(own.slot[i]) * tau;
    return q;
  }();
  int best = 0;
  double best_time = prr_allreduce_predict(prr);
  for (int late = 1; late <= max_late(plan, kAllreduceMaxLate); ++late) {
    const double t =
        estimate_allreduce_late(in, plan.prr.order, plan.quantised, plan.quantised, late);
    if (t < best_time) best = late, best_time = t;
  }
  return best;
}

// PRR's schedule with its chunk j (block j of prr) as blocks [j c, (j + 1) c) of the call.
void emit_prr(const GeneratorInput& in, ScheduleSink& out) {
  const GeneratorInput prr = prr_input(in);
  if (prr.blocks == in.blocks) {
    prr_allreduce_schedule(prr, out);
    return;
  }
  const int per = in.blocks / in.p;
  ScheduleSink chunks(in.p, out.first_rank(), out.last_rank());
  prr_allreduce_schedule(prr, chunks);
  for (const RankSchedule& rs : std::move(chunks).take()) {
    out.reserve(rs.rank, rs.ops.size());
    for (const Step& st : rs.steps)
      for (const Op& op : rs.ops_of(st)) {
        BlockSet blocks;
        for (const BlockRun& run : op.blocks.runs())
          blocks.append_range(run.first * per, run.end() * per);
        if (op.kind == OpKind::send)
          out.send(rs.rank, st.round, op.peer, std::move(blocks));
        else
          out.recv(rs.rank, st.round, op.peer, std::move(blocks), op.combine);
      }
  }
}

}  // namespace

namespace {

// The one-node form, as in the reduce (late_fold_reduce.cpp): over the shared-memory transport a
// send is one copy into the sender's own segment and never waits for its reader. The earliest
// rank reduces every other rank's data in arrival order as it is published (the early ranks'
// while the late ones compute); with the last rank's block b it has block b of the result, which
// it publishes at once, so after the last arrival the last rank's copy in, the root's reduction
// and the result's copy out overlap block by block. Every block is sent once per version:
// one-version. The root's schedule is O(p + n): the result is published block by block through
// sends to one rank, and every other rank takes it in one receive of all blocks (over the window
// it waits for each block's flag in turn, so it still overlaps the root's work).
void flat_allreduce_in_arrival_order(const GeneratorInput& in, const std::vector<int>& order,
                                     ScheduleSink& out) {
  const int p = in.p, n = std::max(in.blocks, 1), root = order[0], last = order[p - 1];
  const BlockSet all = BlockSet::range(0, n);
  auto mine = [&](int r) { return r >= out.first_rank() && r < out.last_rank(); };
  // order[i] (0 < i < p - 1) sends in round i - 1; the last rank sends block b in round
  // p - 2 + b; the root publishes block b of the result in the round after by sending it to
  // order[1] (with p > 2), and sends all of it to the others in round p - 1 + n, after the last
  // rank has sent everything.
  const int64_t last_round = p - 2, whole_round = last_round + n + 1;
  const int first_reader = p > 2 ? order[1] : -1;
  for (int i = 1; i < p - 1; ++i) {
    if (mine(order[i])) out.send(order[i], i - 1, root, all);
    if (mine(root)) out.recv(root, i - 1, order[i], all, Combine::reduce);
  }
  for (int b = 0; b < n; ++b) {
    const BlockSet one = BlockSet::range(b, b + 1);
    if (mine(last)) out.send(last, last_round + b, root, one);
    if (mine(root)) {
      out.recv(root, last_round + b, last, one, Combine::reduce);
      if (first_reader >= 0) out.send(root, last_round + b + 1, first_reader, one);
    }
    if (first_reader >= 0 && mine(first_reader))
      out.recv(first_reader, last_round + b + 1, root, one, Combine::copy);
  }
  for (int i = 1; i < p; ++i) {
    if (order[i] == first_reader) continue;
    if (mine(root)) out.send(root, whole_round, order[i], all);
    if (mine(order[i])) out.recv(order[i], whole_round, root, all, Combine::copy);
  }
}

// Its cost model: a sender is done with its copy (half of beta per byte, as in the reduce's), the
// root reduces each rank's data (gamma per byte) once it is copied; it publishes the last block
// one block's copy after reducing it, the early ranks have copied it a block's copy later, and
// the last rank copies the whole result after its own data.
double estimate_flat_allreduce(const GeneratorInput& in, const std::vector<int>& order,
                               const std::vector<double>& a) {
  const double copy = in.cost.beta / 2 * in.bytes, block = copy / std::max(in.blocks, 1);
  double t = a[order[0]];
  for (size_t i = 1; i < order.size(); ++i)
    t = std::max(t, a[order[i]] + copy) + in.cost.gamma * in.bytes;
  std::vector<double> finish(a.size(), t + 2 * block);
  finish[order[0]] = t + block;
  finish[order.back()] = std::max(t + block, a[order.back()] + copy) + copy;
  return estimate::mean_elapsed(finish, a);
}

}  // namespace

void late_fold_allreduce_schedule(const GeneratorInput& in, ScheduleSink& out) {
  const int p = in.p;
  if (p == 1) return;
  const LateFoldPlan plan = late_fold_plan(in);
  if (in.cost.shared_memory) return flat_allreduce_in_arrival_order(in, plan.prr.order, out);
  const int late = chosen_allreduce_late(in, plan);
  if (late == 0) return emit_prr(in, out);
  // Phase 2 runs the broadcast with small first blocks, phase 1 its reversal with uniform ones
  // (late_fold_runs).
  const BlockRuns runs = late_fold_runs(in.blocks, p, true),
                  runs1 = late_fold_runs(in.blocks, p, false);
  auto one1 = [&](int b) { return runs1.set(b); };
  const LateFoldLayout l = late_fold_layout(plan.prr.order, late);
  const EarlyReduce early = early_reduce(in, runs1, l.rank_at, plan.quantised);
  const FoldTail tail(l, runs, early.rounds);
  // Phase 1 runs among the ranks predicted early (Clairvoyant's schedule over them): its sends
  // are paced (Op::paced). With a chain (two or more late ranks) every round is:
  // the chain's hops go to ranks that arrive with or after their senders (a paced sender then
  // holds its next block, which could go nowhere sooner), and phase 2 and the servers run once
  // the root is there. In SMPI with computation charged the unpaced chain fell out of lockstep
  // in one to three of eight iterations (+20 to 26 ms each, k-late:4 at 100 ms 1.47 to 1.62
  // delta on average); paced, 1.35 in every iteration (docs/algorithms.md, "Paced sends").
  out.set_paced_until(late >= 2 ? std::numeric_limits<int64_t>::max() : early.rounds,
                      paced_send_bytes(in.cost));
  for (int r = out.first_rank(); r < out.last_rank(); ++r) {
    const int v = l.position[r];
    if (v >= 0) {
      // Phase 1: the early group's reduce to the relay.
      out.reserve(r, early.ops[v].size());
      for (const EarlyReduce::Op& op : early.ops[v]) {
        if (op.send)
          out.send(r, op.round, op.peer, one1(op.block));
        else
          out.recv(r, op.round, op.peer, one1(op.block), op.copy ? Combine::copy : Combine::reduce);
      }
    }
    tail.emit(in, r, out);
  }
}

std::string late_fold_allreduce_arrival_key(const GeneratorInput& in) {
  // The one-node form reads less of the plan (the order only) but is told apart by the prefix.
  std::string key = (in.cost.shared_memory ? "flat:" : "") + late_fold_plan(in).prr.key();
  if (in.p > 0 && in.blocks % in.p != 0) key += prr_plan(in).key();
  return key;
}

double late_fold_allreduce_generation_cost(const GeneratorInput& in) {
  if (in.p < 2 || in.cost.shared_memory) return 0;  // the one-node form is O(p)
  const LateFoldPlan plan = late_fold_plan(in);
  if (plan.prr.slot.back() == 0) return 0;  // PRR's schedule, nothing simulated
  // One simulation per candidate count in chosen_allreduce_late (predict's own estimate finds
  // its candidate's cached), and the generator's of the chosen one with its transfers.
  const int candidates = max_late(plan, kAllreduceMaxLate);
  return (candidates + 1) *
         clairvoyant::simulation_seconds(in.p, late_fold_runs(in.blocks, in.p, false).count());
}

double late_fold_allreduce_predict(const GeneratorInput& in) {
  if (in.p == 1) return 0;
  const LateFoldPlan plan = late_fold_plan(in);
  if (in.cost.shared_memory)
    return estimate_flat_allreduce(in, plan.prr.order, estimate::arrivals_of(in));
  const int late = chosen_allreduce_late(in, plan);
  if (late == 0) return prr_allreduce_predict(prr_input(in));
  return estimate_allreduce_late(in, plan.prr.order, plan.quantised, estimate::arrivals_of(in),
                                 late);
}

}  // namespace papcoll
