// Two-level broadcast (two_level.hpp): the nodes' leaders (the root on its node, else the node's
// earliest rank) run a broadcast row among themselves over the network (the circulant broadcast,
// or the arrival-aware one on the leaders' arrivals: leaders_row), and each leader then passes the
// buffer on inside its node by a binomial tree. A late rank is no leader unless it is alone on its
// node: its node's leader serves it when it comes, over the node's links.
#include <algorithm>

#include "schedule/bcast_generators.hpp"
#include "schedule/estimate.hpp"
#include "schedule/plan_memo.hpp"
#include "schedule/two_level/two_level.hpp"
#include "schedule/two_level/two_level_estimate.hpp"

namespace papcoll {
namespace {

struct BcastPlan {
  TwoLevelPlan nodes;
  GeneratorInput leaders;
  const AlgorithmInfo* row = nullptr;
};

BcastPlan build_bcast_plan(const GeneratorInput& in) {
  BcastPlan bp;
  bp.nodes = two_level_plan(in, false, bcast_root(in));
  std::vector<double> ready;
  if (static_cast<int>(in.arrivals.size()) == in.p)
    for (int k = 0; k < bp.nodes.nodes; ++k) ready.push_back(in.arrivals[bp.nodes.leader[k]]);
  bp.leaders = leaders_input(in, bp.nodes, ready);
  bp.row = leaders_row(Collective::bcast, in, bp.leaders);
  return bp;
}

// Built once per input and thread (plan_memo.hpp): the block count, the estimate, the key and the
// schedule of a call all read it.
std::shared_ptr<const BcastPlan> bcast_plan(const GeneratorInput& in) {
  thread_local PlanMemo<BcastPlan> memo;
  return memo.get(in, build_bcast_plan);
}

}  // namespace

void two_level_bcast_schedule(const GeneratorInput& in, ScheduleSink& out) {
  if (in.p == 1) return;
  const std::shared_ptr<const BcastPlan> kept = bcast_plan(in);
  const BcastPlan& bp = *kept;
  const GroupPhase among{
      .members = bp.nodes.leader, .first_round = 0, .stride = 1, .block_map = {}};
  if (bp.nodes.nodes > 1) emit_phase(bp.row->generate, bp.leaders, among, out);
  emit_node_broadcasts(in, bp.nodes, *bp.row, bp.leaders, among, 0, out);
}

std::string two_level_bcast_arrival_key(const GeneratorInput& in) {
  const std::shared_ptr<const BcastPlan> kept = bcast_plan(in);
  const BcastPlan& bp = *kept;
  return two_level_key(bp.nodes, *bp.row, bp.leaders);
}

int two_level_bcast_blocks(const GeneratorInput& in) {
  GeneratorInput own = in;
  own.blocks = 0;  // each candidate with its own count
  const std::shared_ptr<const BcastPlan> kept = bcast_plan(own);
  const BcastPlan& bp = *kept;
  return default_block_count(*bp.row, bp.leaders);
}

// The leaders by their row's estimate (spread_to_nodes_estimate, with their own arrivals as the
// nodes' ready times), the others a binomial tree of whole messages after that.
double two_level_bcast_predict(const GeneratorInput& in) {
  if (in.p == 1) return 0;
  const std::shared_ptr<const BcastPlan> kept = bcast_plan(in);
  const BcastPlan& bp = *kept;
  const std::vector<double> a = estimate::arrivals_of(in);
  std::vector<double> ready;
  for (int k = 0; k < bp.nodes.nodes; ++k) ready.push_back(a[bp.nodes.leader[k]]);
  return spread_to_nodes_estimate(in, bp.nodes, ready, *bp.row, bp.leaders);
}

}  // namespace papcoll
