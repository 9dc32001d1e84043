// Two-level reduce (two_level.hpp): inside every node the ranks but the leader reduce to the
// earliest of them, which hands the sum to the leader (the root on the root's node, else the
// node's latest rank) as the all-reduce does; the leaders then run a reduce row among themselves
// over the network to the root, with the nodes' ready times as arrivals (leaders_row).
#include <algorithm>

#include "schedule/estimate.hpp"
#include "schedule/plan_memo.hpp"
#include "schedule/reduce_generators.hpp"
#include "schedule/two_level/two_level.hpp"
#include "schedule/two_level/two_level_estimate.hpp"

namespace papcoll {
namespace {

struct ReducePlan {
  TwoLevelPlan nodes;
  std::vector<double> ready;
  GeneratorInput leaders;
  const AlgorithmInfo* row = nullptr;
};

// The leaders' row is chosen with each candidate at its own block count, whatever the call's (as
// two-level-rsag's): so the block count a call is prepared with and the estimate, key and schedule
// made with that count read one plan, and a new pattern builds it once.
ReducePlan build_reduce_plan(const GeneratorInput& in) {
  ReducePlan rp;
  rp.nodes = two_level_plan(in, true, reduce_root(in));
  if (static_cast<int>(in.arrivals.size()) == in.p) rp.ready = node_sums_ready(in, rp.nodes);
  rp.leaders = leaders_input(in, rp.nodes, rp.ready);
  rp.row = leaders_row(Collective::reduce, in, rp.leaders);
  return rp;
}

// Built once per input and thread (plan_memo.hpp), whatever its block count.
std::shared_ptr<const ReducePlan> reduce_plan(const GeneratorInput& in) {
  thread_local PlanMemo<ReducePlan, /*kReadsBlocks=*/false> memo;
  return memo.get(in, build_reduce_plan);
}

// The leaders' phase with the call's blocks.
GeneratorInput leaders_with_blocks(const ReducePlan& rp, const GeneratorInput& in) {
  GeneratorInput g = rp.leaders;
  g.blocks = in.blocks;
  return g;
}

}  // namespace

void two_level_reduce_schedule(const GeneratorInput& in, ScheduleSink& out) {
  if (in.p == 1) return;
  const std::shared_ptr<const ReducePlan> kept = reduce_plan(in);
  const ReducePlan& rp = *kept;
  const TwoLevelPlan& plan = rp.nodes;
  const int64_t ra = emit_node_reduces(in, plan, out);
  if (plan.nodes > 1)
    emit_phase(rp.row->generate, leaders_with_blocks(rp, in),
               GroupPhase{.members = plan.leader, .first_round = ra, .stride = 1, .block_map = {}},
               out);
}

std::string two_level_reduce_arrival_key(const GeneratorInput& in) {
  const std::shared_ptr<const ReducePlan> kept = reduce_plan(in);
  const ReducePlan& rp = *kept;
  return two_level_key(rp.nodes, *rp.row, leaders_with_blocks(rp, in));
}

int two_level_reduce_blocks(const GeneratorInput& in) {
  const std::shared_ptr<const ReducePlan> kept = reduce_plan(in);
  const ReducePlan& rp = *kept;
  return default_block_count(*rp.row, rp.leaders);
}

// The leaders by their row's per-rank estimate, the other ranks when they have handed their part
// on inside their node.
double two_level_reduce_predict(const GeneratorInput& in) {
  if (in.p == 1) return 0;
  const std::shared_ptr<const ReducePlan> kept = reduce_plan(in);
  const ReducePlan& rp = *kept;
  const TwoLevelPlan& plan = rp.nodes;
  const NodeSums sums = node_sums(in, plan);
  const std::vector<double> a = estimate::arrivals_of(in);
  const std::vector<double> lf =
      leaders_finish(plan, sums.ready, *rp.row, leaders_with_blocks(rp, in)).finish;
  std::vector<double> done(sums.sent);
  for (int k = 0; k < plan.nodes; ++k) done[plan.leader[k]] = std::max(lf[k], a[plan.leader[k]]);
  return estimate::mean_elapsed(done, a);
}

}  // namespace papcoll
