#include <algorithm>
#include <cmath>
#include <limits>

#include "schedule/two_level/two_level.hpp"

#include "schedule/bcast_generators.hpp"
#include "schedule/reduce_generators.hpp"

namespace papcoll {

TwoLevelPlan two_level_plan(const GeneratorInput& in, bool leader_last, int fixed) {
  TwoLevelPlan plan;
  const int p = in.p;
  plan.node_of.resize(static_cast<size_t>(p));
  if (in.nodes != nullptr && in.nodes->p() == p) {
    plan.node_of = in.nodes->node_of;
  } else {
    for (int r = 0; r < p; ++r) plan.node_of[r] = r;
  }
  for (int r = 0; r < p; ++r) plan.nodes = std::max(plan.nodes, plan.node_of[r] + 1);
  plan.ranks.assign(static_cast<size_t>(plan.nodes), {});
  for (int r = 0; r < p; ++r) plan.ranks[plan.node_of[r]].push_back(r);
  const bool timed = static_cast<int>(in.arrivals.size()) == p;
  auto at = [&](int r) { return timed ? in.arrivals[r] : 0.0; };
  plan.leader.resize(static_cast<size_t>(plan.nodes));
  plan.others.resize(static_cast<size_t>(plan.nodes));
  for (int k = 0; k < plan.nodes; ++k) {
    std::vector<int> by_arrival = plan.ranks[k];
    // Arrival order, ties by rank: equal arrivals keep the ranks' order.
    std::stable_sort(by_arrival.begin(), by_arrival.end(),
                     [&](int a, int b) { return at(a) < at(b); });
    int lead = leader_last ? by_arrival.back() : by_arrival.front();
    if (fixed >= 0 && fixed < p && plan.node_of[fixed] == k) lead = fixed;
    plan.leader[k] = lead;
    for (int r : by_arrival)
      if (r != lead) plan.others[k].push_back(r);
    plan.largest = std::max(plan.largest, static_cast<int>(plan.ranks[k].size()));
  }
  return plan;
}

GeneratorInput leaders_input(const GeneratorInput& in, const TwoLevelPlan& plan,
                             const std::vector<double>& ready) {
  GeneratorInput g;
  g.p = plan.nodes;
  g.blocks = in.blocks;
  g.cost = in.cost;
  g.cost.intra_alpha = g.cost.intra_beta = 0;
  g.cost.shared_memory = false;
  g.bytes = in.bytes;
  if (!ready.empty()) g.arrivals = ready;
  g.counts = in.counts;
  g.elem_bytes = in.elem_bytes;
  // A rooted collective's root (-1 meaning rank 0, as its generators take it) is on the node whose
  // leader it is; an all-reduce reads no root.
  const int root = in.root < 0 ? 0 : in.root;
  if (root < in.p) g.root = plan.node_of[root];
  return g;
}

CostParams intra_cost(const CostParams& c) {
  CostParams i = c;
  if (c.intra_alpha > 0) i.alpha = c.intra_alpha;
  if (c.intra_beta > 0) i.beta = c.intra_beta;
  return i;
}

const AlgorithmInfo* leaders_row(Collective c, const GeneratorInput& in,
                                 const GeneratorInput& leaders) {
  // A row named by in.impl, if it has an estimate (the two-level estimates compose the leaders'
  // row's own).
  if (!in.impl.empty())
    if (const AlgorithmInfo* a = find_algorithm(c, in.impl); a != nullptr && a->predict != nullptr)
      return a;
  const AlgorithmInfo* best = nullptr;
  double best_time = std::numeric_limits<double>::infinity();
  for (const AlgorithmInfo* a : algorithms_for(c)) {
    if (a->auto_role == AutoRole::none || a->predict == nullptr || a->generation_cost != nullptr ||
        a->topology_aware)
      continue;
    GeneratorInput g = leaders;
    // The call's block count; none yet (the two-level row's own count being chosen): each row's.
    g.blocks = in.blocks > 0 ? in.blocks : default_block_count(*a, g);
    double t = std::numeric_limits<double>::infinity();
    try {
      t = a->predict(g);
    } catch (const std::exception&) {
    }
    // A row whose estimate does not hold for this block count (PRR's with fewer blocks than
    // ranks says -inf) is no candidate.
    if (std::isfinite(t) && t >= 0 && t < best_time) best = a, best_time = t;
  }
  return best;
}

GeneratorInput node_input(int p, int root, const GeneratorInput& in) {
  GeneratorInput g;
  g.p = p;
  g.blocks = 1;
  g.root = root;
  g.cost = intra_cost(in.cost);
  g.bytes = in.bytes;
  return g;
}

std::vector<int> wanted_nodes(const TwoLevelPlan& plan, const ScheduleSink& out) {
  std::vector<int> wanted;
  for (int k = 0; k < plan.nodes; ++k)
    for (int r : plan.ranks[k])
      if (out.wants(r)) {
        wanted.push_back(k);
        break;
      }
  return wanted;
}

int64_t emit_node_reduces(const GeneratorInput& in, const TwoLevelPlan& plan, ScheduleSink& out) {
  int depth = 0;
  while ((1LL << depth) < plan.largest - 1) ++depth;
  const int64_t hop = depth;  // the binomial tree over the other ranks takes rounds [0, depth)
  const std::vector<BlockSet> whole = whole_buffer_map(in.blocks);
  for (int k : wanted_nodes(plan, out)) {
    const std::vector<int>& others = plan.others[k];
    if (others.empty()) continue;
    emit_phase(binomial_reduce_schedule, node_input(static_cast<int>(others.size()), 0, in),
               GroupPhase{.members = others, .block_map = whole}, out);
    if (out.wants(others[0])) out.send(others[0], hop, plan.leader[k], whole[0]);
    if (out.wants(plan.leader[k]))
      out.recv(plan.leader[k], hop, others[0], whole[0], Combine::reduce);
  }
  return hop + 1;
}

void emit_node_broadcasts(const GeneratorInput& in, const TwoLevelPlan& plan,
                          const AlgorithmInfo& row, const GeneratorInput& leaders,
                          const GroupPhase& among, int64_t first_round, ScheduleSink& out) {
  const int blocks = std::max(1, in.blocks);
  const int chunks = node_broadcast_chunks(in);
  auto chunk_first = [&](int c) { return static_cast<int>(int64_t{c} * blocks / chunks); };
  for (int k : wanted_nodes(plan, out)) {
    if (plan.others[k].empty()) continue;
    // Chunk c goes out once the leader's last receive among the leaders that touches it is done,
    // so the node's broadcast runs while the leaders' phase still delivers the later chunks.
    std::vector<int64_t> start(static_cast<size_t>(chunks), first_round);
    if (plan.nodes > 1) {
      const std::vector<int64_t> last =
          last_receive_rounds(phase_rank(row.generate, leaders, among, k), blocks);
      for (int c = 0; c < chunks; ++c)
        for (int b = chunk_first(c); b < chunk_first(c + 1); ++b)
          start[c] = std::max(start[c], last[b] + 1);
    }
    std::vector<int> members{plan.leader[k]};
    members.insert(members.end(), plan.others[k].begin(), plan.others[k].end());
    const GeneratorInput node = node_input(static_cast<int>(members.size()), 0, in);
    for (int c = 0; c < chunks; ++c) {
      const std::vector<BlockSet> chunk{BlockSet::range(chunk_first(c), chunk_first(c + 1))};
      emit_phase(binomial_bcast_schedule, node,
                 GroupPhase{.members = members, .first_round = start[c], .block_map = chunk}, out);
    }
  }
}

int node_broadcast_chunks(const GeneratorInput& in) {
  // A chunk's transfer at least kNodeChunkAlphas latencies long: chunks of small buffers would
  // only multiply the messages (each a latency and the executor's work per message).
  const CostParams c = intra_cost(in.cost);
  const double worth = c.alpha > 0 ? c.beta * in.bytes / (kNodeChunkAlphas * c.alpha) : 1.0;
  const int most = std::min(kNodeBroadcastChunks, std::max(1, in.blocks));
  return std::clamp(static_cast<int>(worth), 1, most);
}

std::string two_level_key(const TwoLevelPlan& plan, const AlgorithmInfo& row,
                          const GeneratorInput& leaders) {
  std::string key = row.name;
  key += '|';
  for (int k = 0; k < plan.nodes; ++k) {
    key.append(reinterpret_cast<const char*>(&plan.leader[k]), sizeof(int));
    for (int r : plan.others[k]) key.append(reinterpret_cast<const char*>(&r), sizeof(int));
    key += ';';
  }
  key += '|';
  if (row.arrival_key != nullptr) key += row.arrival_key(leaders);
  return key;
}

std::vector<BlockSet> whole_buffer_map(int blocks) {
  return {BlockSet::range(0, std::max(1, blocks))};
}

}  // namespace papcoll
