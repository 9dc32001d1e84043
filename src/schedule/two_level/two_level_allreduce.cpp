// Two-level all-reduce (two_level.hpp): inside every node the ranks but the leader reduce to the
// earliest of them (a binomial tree of whole vectors over the node's links), which hands the sum
// to the leader, the node's latest rank, as soon as both are there; the leaders run an
// all-reduce row among themselves over the network, with the nodes' ready times as arrivals
// (relay-fold, PRR, Rabenseifner, ... whichever the estimate favours: leaders_row); each leader
// then broadcasts the result inside its node (a binomial tree). A late rank delays only its own
// node's reduce, by one message inside the node, and its node is the late one among the nodes.
#include <algorithm>
#include <limits>

#include "schedule/allreduce_generators.hpp"
#include "schedule/estimate.hpp"
#include "schedule/plan_memo.hpp"
#include "schedule/reduce_generators.hpp"
#include "schedule/two_level/two_level.hpp"
#include "schedule/two_level/two_level_estimate.hpp"

namespace papcoll {
namespace {

struct AllreducePlan {
  TwoLevelPlan nodes;
  std::vector<double> ready;  // per node, when its leader holds the node's sum (empty: balanced)
  GeneratorInput leaders;
  const AlgorithmInfo* row = nullptr;
};

AllreducePlan build_allreduce_plan(const GeneratorInput& in) {
  AllreducePlan ap;
  ap.nodes = two_level_plan(in, true);
  if (static_cast<int>(in.arrivals.size()) == in.p) ap.ready = node_sums_ready(in, ap.nodes);
  ap.leaders = leaders_input(in, ap.nodes, ap.ready);
  ap.row = leaders_row(Collective::allreduce, in, ap.leaders);
  return ap;
}

// Built once per input and thread (plan_memo.hpp): the block count, the estimate, the key and the
// schedule of a call all read it.
std::shared_ptr<const AllreducePlan> allreduce_plan(const GeneratorInput& in) {
  thread_local PlanMemo<AllreducePlan> memo;
  return memo.get(in, build_allreduce_plan);
}

}  // namespace

void two_level_allreduce_schedule(const GeneratorInput& in, ScheduleSink& out) {
  if (in.p == 1) return;
  const std::shared_ptr<const AllreducePlan> kept = allreduce_plan(in);
  const AllreducePlan& ap = *kept;
  const TwoLevelPlan& plan = ap.nodes;
  const std::vector<BlockSet> whole = whole_buffer_map(in.blocks);
  const int64_t ra = emit_node_reduces(in, plan, out);
  const GroupPhase among{.members = plan.leader, .first_round = ra, .stride = 1, .block_map = {}};
  const std::vector<int> wanted = wanted_nodes(plan, out);
  // Among the leaders.
  if (plan.nodes > 1) emit_phase(ap.row->generate, ap.leaders, among, out);
  emit_node_broadcasts(in, plan, *ap.row, ap.leaders, among, ra, out);
}

std::string two_level_allreduce_arrival_key(const GeneratorInput& in) {
  const std::shared_ptr<const AllreducePlan> kept = allreduce_plan(in);
  const AllreducePlan& ap = *kept;
  return two_level_key(ap.nodes, *ap.row, ap.leaders);
}

int two_level_allreduce_blocks(const GeneratorInput& in) {
  GeneratorInput own = in;
  own.blocks = 0;  // each candidate with its own count
  const std::shared_ptr<const AllreducePlan> kept = allreduce_plan(own);
  const AllreducePlan& ap = *kept;
  return default_block_count(*ap.row, ap.leaders);
}

double two_level_allreduce_predict(const GeneratorInput& in) {
  if (in.p == 1) return 0;
  const std::shared_ptr<const AllreducePlan> kept = allreduce_plan(in);
  const AllreducePlan& ap = *kept;
  std::vector<double> ready = ap.ready;
  if (ready.empty()) ready = node_sums_ready(in, ap.nodes);
  return spread_to_nodes_estimate(in, ap.nodes, ready, *ap.row, ap.leaders);
}

}  // namespace papcoll
