// Two-level all-gatherv (two_level.hpp): inside every node the ranks hand their portions to the
// leader (the node's latest rank), the leaders run an all-gatherv row among themselves over the
// network with each node's portions as one origin's (the circulant all-gatherv, or the
// arrival-aware one on the nodes' ready times: leaders_row), and each leader then passes the whole
// buffer on inside its node by a binomial tree. Across the network each node's data travels once
// per link, not once per rank.
#include <algorithm>

#include "schedule/allgatherv_generators.hpp"
#include "schedule/estimate.hpp"
#include "schedule/plan_memo.hpp"
#include "schedule/portions.hpp"
#include "schedule/schedule_sink.hpp"
#include "schedule/two_level/two_level.hpp"
#include "schedule/two_level/two_level_estimate.hpp"

namespace papcoll {
namespace {

struct AllgathervPlan {
  TwoLevelPlan nodes;
  std::vector<double> ready;
  GeneratorInput leaders;
  const AlgorithmInfo* row = nullptr;
  int per = 1;  // the leaders' blocks per node
};

// When each leader holds its node's portions: the others' portions copied in one after another
// through the leader's port, once they and the leader are there.
std::vector<double> portions_ready(const GeneratorInput& in, const TwoLevelPlan& plan) {
  const std::vector<double> a = estimate::arrivals_of(in), bytes = portion_bytes(in);
  const CostParams c = intra_cost(in.cost);
  std::vector<double> ready(static_cast<size_t>(plan.nodes));
  for (int k = 0; k < plan.nodes; ++k) {
    double t = a[plan.leader[k]];
    for (int r : plan.others[k]) t = std::max(t, a[r]) + c.alpha + c.beta * bytes[r];
    ready[k] = t;
  }
  return ready;
}

AllgathervPlan build_allgatherv_plan(const GeneratorInput& in) {
  AllgathervPlan ap;
  ap.nodes = two_level_plan(in, true);
  if (static_cast<int>(in.arrivals.size()) == in.p) ap.ready = portions_ready(in, ap.nodes);
  ap.leaders = leaders_input(in, ap.nodes, ap.ready);
  // One origin per node, its count the node's elements.
  const std::vector<double> bytes = portion_bytes(in);
  ap.leaders.counts.assign(static_cast<size_t>(ap.nodes.nodes), 0);
  ap.leaders.elem_bytes = 1;
  for (int r = 0; r < in.p; ++r)
    ap.leaders.counts[ap.nodes.node_of[r]] += static_cast<long long>(bytes[r]);
  // The call's blocks per rank, as the leaders' blocks per node.
  ap.per = std::max(1, in.blocks / std::max(1, in.p));
  GeneratorInput sized = in;
  if (sized.blocks > 0) sized.blocks = ap.per * ap.nodes.nodes;
  ap.row = leaders_row(Collective::allgatherv, sized, ap.leaders);
  ap.leaders.blocks = ap.per * ap.nodes.nodes;
  return ap;
}

// Built once per input and thread (plan_memo.hpp): the block count, the estimate, the key and the
// schedule of a call all read it.
std::shared_ptr<const AllgathervPlan> allgatherv_plan(const GeneratorInput& in) {
  thread_local PlanMemo<AllgathervPlan> memo;
  return memo.get(in, build_allgatherv_plan);
}

}  // namespace

void two_level_allgatherv_schedule(const GeneratorInput& in, ScheduleSink& out) {
  if (in.p == 1) return;
  const std::shared_ptr<const AllgathervPlan> kept = allgatherv_plan(in);
  const AllgathervPlan& ap = *kept;
  const TwoLevelPlan& plan = ap.nodes;
  const int blocks = std::max(1, in.blocks);
  // Inside the nodes, round 0: every other rank hands its own blocks to its leader.
  for (int k : wanted_nodes(plan, out))
    for (int r : plan.others[k]) {
      const BlockSet own = origin_blocks(blocks, in.p, r);
      if (out.wants(r)) out.send(r, 0, plan.leader[k], own);
      if (out.wants(plan.leader[k])) out.recv(plan.leader[k], 0, r, own, Combine::copy);
    }
  // Among the leaders from round 1: the leaders' block j of node k is chunk j of the node's
  // blocks (its ranks' portions in rank order).
  std::vector<BlockSet> map(static_cast<size_t>(ap.per) * plan.nodes);
  for (int k = 0; k < plan.nodes; ++k) {
    std::vector<int> ids;
    for (int r : plan.ranks[k])
      origin_blocks(blocks, in.p, r).for_each([&](int b) { ids.push_back(b); });
    const int n = static_cast<int>(ids.size());
    for (int j = 0; j < ap.per; ++j) {
      BlockSet s;
      const int lo = static_cast<int>(static_cast<int64_t>(j) * n / ap.per),
                hi = static_cast<int>(static_cast<int64_t>(j + 1) * n / ap.per);
      for (int i = lo; i < hi; ++i) s.append(ids[i]);
      map[static_cast<size_t>(k) * ap.per + j] = std::move(s);
    }
  }
  // A node whose chunk is empty (fewer blocks than chunks) has nothing to send for it: an empty
  // block of the leaders' schedule maps to no message, which the sink drops.
  const GroupPhase among{.members = plan.leader, .first_round = 1, .stride = 1, .block_map = map};
  if (plan.nodes > 1) emit_phase(ap.row->generate, ap.leaders, among, out);
  emit_node_broadcasts(in, plan, *ap.row, ap.leaders, among, 1, out);
}

std::string two_level_allgatherv_arrival_key(const GeneratorInput& in) {
  const std::shared_ptr<const AllgathervPlan> kept = allgatherv_plan(in);
  const AllgathervPlan& ap = *kept;
  return two_level_key(ap.nodes, *ap.row, ap.leaders);
}

int two_level_allgatherv_blocks(const GeneratorInput& in) {
  GeneratorInput own = in;
  own.blocks = 0;
  const std::shared_ptr<const AllgathervPlan> kept = allgatherv_plan(own);
  const AllgathervPlan& ap = *kept;
  // The leaders' row's blocks per node as the call's blocks per rank.
  const int per_node = std::max(1, default_block_count(*ap.row, ap.leaders) / ap.nodes.nodes);
  return in.p * per_node;
}

double two_level_allgatherv_predict(const GeneratorInput& in) {
  if (in.p == 1) return 0;
  const std::shared_ptr<const AllgathervPlan> kept = allgatherv_plan(in);
  const AllgathervPlan& ap = *kept;
  const std::vector<double> ready = ap.ready.empty() ? portions_ready(in, ap.nodes) : ap.ready;
  return spread_to_nodes_estimate(in, ap.nodes, ready, *ap.row, ap.leaders);
}

}  // namespace papcoll
