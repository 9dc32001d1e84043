// The tree and lockstep estimates (schedule/estimate_tree.hpp, estimate_topology.hpp) against the
// cost model run on papcoll's own tree schedules, and their node-aware link sharing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "model/node_layout.hpp"
#include "schedule/estimate.hpp"
#include "schedule/estimate_topology.hpp"
#include "schedule/estimate_tree.hpp"
#include "schedule/registry.hpp"
#include "verify/cost_model.hpp"

namespace papcoll {
namespace {

using estimate::RankTree;
using estimate::Serve;
using estimate::TreeTransfer;

std::vector<double> pattern(std::mt19937_64& rng, int p, double spread) {
  std::vector<double> a(static_cast<size_t>(p), 0.0);
  std::uniform_real_distribution<double> d(0, spread);
  if (rng() % 2 == 0) {
    a[rng() % p] = d(rng);
  } else {
    for (double& x : a) x = d(rng);
  }
  return a;
}

GeneratorInput random_input(std::mt19937_64& rng, int max_p) {
  GeneratorInput in;
  in.p = 2 + static_cast<int>(rng() % (max_p - 1));
  in.bytes = static_cast<double>(1 << (10 + rng() % 12));
  in.cost.alpha = 5e-6 + 20e-6 * (rng() % 2);
  in.cost.beta = 1e-9 * (1 + rng() % 8);
  in.cost.gamma = 2.5e-10;
  return in;
}

double mean_of(const std::vector<double>& finish, const GeneratorInput& in) {
  return estimate::mean_elapsed(finish, estimate::arrivals_of(in));
}

double model(const AlgorithmInfo& a, const GeneratorInput& in) {
  return evaluate_cost(generate_schedule(a, in), in.arrivals, in.cost,
                       static_cast<int64_t>(in.bytes))
      .mean_elapsed;
}

TEST(TreeEstimate, WholeMessageTreesMatchTheCostModel) {
  // One segment, every send waiting for its receiver: the tree estimates are the cost model's
  // rules exactly, balanced and under arrivals.
  std::mt19937_64 rng(5);
  const AlgorithmInfo& bcast = *find_algorithm(Collective::bcast, "binomial");
  const AlgorithmInfo& reduce = *find_algorithm(Collective::reduce, "binomial");
  const AlgorithmInfo& linear = *find_algorithm(Collective::reduce, "linear");
  for (int trial = 0; trial < 100; ++trial) {
    GeneratorInput in = random_input(rng, 40);
    in.blocks = 1;
    in.root = static_cast<int>(rng() % in.p);
    if (trial % 2 == 1)
      in.arrivals = pattern(rng, in.p, 10 * (in.cost.alpha + in.cost.beta * in.bytes));
    const std::vector<double> a = estimate::arrivals_of(in);
    TreeTransfer x;
    x.segment_bytes = in.bytes;
    const RankTree down = estimate::binomial_tree(in.p, in.root, true, Serve::one_at_a_time);
    EXPECT_NEAR(mean_of(estimate::tree_bcast_finish(in, down, x, a), in) / model(bcast, in), 1,
                1e-9)
        << "bcast p=" << in.p;
    x.reduce = true;
    const RankTree up = estimate::binomial_tree(in.p, in.root, false, Serve::one_at_a_time);
    EXPECT_NEAR(mean_of(estimate::tree_reduce_finish(in, up, x, a), in) / model(reduce, in), 1,
                1e-9)
        << "reduce p=" << in.p;
    std::vector<int> order;  // papcoll's linear reduce takes relative ranks 1, 2, ...
    for (int v = 1; v < in.p; ++v) order.push_back((in.root + v) % in.p);
    const RankTree flat = estimate::flat_tree(in.p, in.root, order, Serve::one_at_a_time);
    EXPECT_NEAR(mean_of(estimate::tree_reduce_finish(in, flat, x, a), in) / model(linear, in), 1,
                1e-9)
        << "linear reduce p=" << in.p;
  }
}

TEST(TreeEstimate, PipelinedTreesAreCloseToTheCostModel) {
  // Segments: the closed form (segment 0 exact, the rest at the slowest rank's period) against
  // papcoll's segmented binomial broadcast and pipelined chain, balanced and under arrivals.
  std::mt19937_64 rng(8);
  const AlgorithmInfo& binomial = *find_algorithm(Collective::bcast, "binomial");
  const AlgorithmInfo& chain = *find_algorithm(Collective::bcast, "chain");
  double worst[2] = {0, 0};  // balanced, under arrivals
  for (int trial = 0; trial < 80; ++trial) {
    GeneratorInput in = random_input(rng, 33);
    in.root = static_cast<int>(rng() % in.p);
    in.blocks = 2 + static_cast<int>(rng() % 30);
    in.bytes = in.blocks * std::floor(in.bytes / in.blocks);
    if (trial % 2 == 1)
      in.arrivals = pattern(rng, in.p, 5 * (in.cost.alpha + in.cost.beta * in.bytes));
    const std::vector<double> a = estimate::arrivals_of(in);
    TreeTransfer x;
    x.segments = in.blocks;
    x.segment_bytes = in.bytes / in.blocks;
    const double tb =
        mean_of(estimate::tree_bcast_finish(
                    in, estimate::binomial_tree(in.p, in.root, true, Serve::one_at_a_time), x, a),
                in);
    const double tc =
        mean_of(estimate::tree_bcast_finish(
                    in, estimate::chain_tree(in.p, in.root, 1, Serve::one_at_a_time), x, a),
                in);
    const double eb = tb / model(binomial, in) - 1, ec = tc / model(chain, in) - 1;
    double& w = worst[in.arrivals.empty() ? 0 : 1];
    w = std::max({w, std::abs(eb), std::abs(ec)});
    EXPECT_LT(std::abs(eb), in.arrivals.empty() ? 0.1 : 0.2)
        << "binomial p=" << in.p << " B=" << in.blocks;
    EXPECT_LT(std::abs(ec), in.arrivals.empty() ? 0.1 : 0.2)
        << "chain p=" << in.p << " B=" << in.blocks;
    if (in.arrivals.empty()) {
      EXPECT_NEAR(ec, 0, 1e-9) << "a balanced chain is exact";
    }
  }
  std::cout << "[ info ] pipelined trees: worst |estimate / cost model - 1| balanced " << worst[0]
            << ", under arrivals " << worst[1] << "\n";
}

TEST(TreeEstimate, EagerSendersDoNotWaitForLateReceivers) {
  // A binomial reduce of 1 KiB at p = 8 with rank 6 (the parent of the leaf 7) 50 ms late: with
  // eager sends the leaf leaves at once; 6's subtree and the root still wait for 6.
  GeneratorInput in;
  in.p = 8;
  in.root = 0;
  in.bytes = 1024;
  std::vector<double> a(8, 0.0);
  a[6] = 0.05;  // parent of 7
  TreeTransfer x;
  x.segment_bytes = in.bytes;
  x.reduce = true;
  const RankTree up = estimate::binomial_tree(8, 0, false, Serve::one_at_a_time);
  const std::vector<double> waiting = estimate::tree_reduce_finish(in, up, x, a);
  x.eager_bytes = 65536;
  const std::vector<double> eager = estimate::tree_reduce_finish(in, up, x, a);
  EXPECT_GT(waiting[7], 0.05);
  EXPECT_LT(eager[7], 1e-3);
  EXPECT_GT(eager[0], 0.05);
}

TEST(TreeEstimate, TreeShapes) {
  // Open MPI's trees as its topo code builds them (coll_base_topo.c): spot checks.
  const RankTree bm = estimate::ompi_bmtree(8, 0, Serve::all_at_once);
  EXPECT_EQ(bm.children(0), 3);  // 1, 2, 4
  EXPECT_EQ(bm.parent[3], 1);
  EXPECT_EQ(bm.parent[6], 2);
  const RankTree k4 = estimate::knomial_tree(16, 0, 4, true, Serve::all_at_once);
  EXPECT_EQ(k4.children(0), 6);  // 4, 8, 12 then 1, 2, 3
  EXPECT_EQ(k4.parent[5], 4);
  EXPECT_EQ(k4.parent[12], 0);
  EXPECT_NE(k4.batch[static_cast<size_t>(k4.first[0])],
            k4.batch[static_cast<size_t>(k4.first[0] + 3)]);
  const RankTree bin = estimate::kary_tree(7, 0, 2, Serve::one_at_a_time);
  EXPECT_EQ(bin.parent[3], 1);
  EXPECT_EQ(bin.parent[5], 1);
  EXPECT_EQ(bin.parent[4], 2);
  const RankTree chains = estimate::chain_tree(8, 2, 3, Serve::all_at_once);  // 7 ranks in 3 chains
  EXPECT_EQ(chains.children(2), 3);
  EXPECT_EQ(chains.parent[4], 3);  // relative 1 -> 2 -> 3 is the first chain
  const RankTree in_order = estimate::in_order_binary_tree(7, Serve::one_at_a_time);
  EXPECT_EQ(in_order.root, 6);
  EXPECT_EQ(in_order.parent[5], 6);
  EXPECT_EQ(in_order.parent[2], 6);
  for (const RankTree* t : {&bm, &k4, &bin, &chains, &in_order})
    EXPECT_EQ(static_cast<int>(t->order.size()), t->p()) << "every rank reached once";
}

TEST(TopologyEstimate, FlowsThroughOneNodeLinkShareIt) {
  GeneratorInput in;
  in.p = 12;
  in.cost.alpha = 20e-6;
  in.cost.beta = 8e-9;
  in.cost.intra_alpha = 1e-6;
  in.cost.intra_beta = 1e-10;
  in.nodes = std::make_shared<NodeLayout>(block_node_layout(12, 6));
  const double m = 1 << 20;
  std::vector<int> to(12, -1);
  std::vector<double> bytes(12, m);
  // The six ranks of node 0 each send to node 1 at once: six times one message's transfer.
  for (int r = 0; r < 6; ++r) to[r] = 6 + r;
  EXPECT_NEAR(estimate::lockstep_step_time(in, to, bytes), 20e-6 + 6 * 8e-9 * m, 1e-12);
  // A ring: one flow leaves each node per step.
  for (int r = 0; r < 12; ++r) to[r] = (r + 1) % 12;
  EXPECT_NEAR(estimate::lockstep_step_time(in, to, bytes), 20e-6 + 8e-9 * m, 1e-12);
  // Inside the nodes only: the intra-node parameters, no sharing.
  for (int r = 0; r < 12; ++r) to[r] = r % 6 == 5 ? r - 5 : r + 1;
  EXPECT_NEAR(estimate::lockstep_step_time(in, to, bytes), 1e-6 + 1e-10 * m, 1e-12);
  // Without a layout each rank is its own node.
  in.nodes = nullptr;
  for (int r = 0; r < 12; ++r) to[r] = r < 6 ? 6 + r : -1;
  EXPECT_NEAR(estimate::lockstep_step_time(in, to, bytes), 20e-6 + 8e-9 * m, 1e-12);
}

TEST(TopologyEstimate, TreeRoundsShareANodesLink) {
  // Two nodes of 4 ranks; a k-nomial tree of radix 8 whose root sends to all 7 others at once
  // (as Open MPI's trees post every child's send): 4 of those flows leave node 0 together.
  GeneratorInput in;
  in.p = 8;
  in.bytes = 1 << 20;
  in.cost.alpha = 20e-6;
  in.cost.beta = 8e-9;
  in.cost.intra_alpha = 1e-6;
  in.cost.intra_beta = 1e-10;
  in.nodes = std::make_shared<NodeLayout>(block_node_layout(8, 4));
  TreeTransfer x;
  x.segment_bytes = in.bytes;
  const std::vector<double> zero(8, 0.0);
  const RankTree star = estimate::knomial_tree(8, 0, 8, false, Serve::all_at_once);
  const std::vector<double> f = estimate::tree_bcast_finish(in, star, x, zero);
  EXPECT_NEAR(f[4], 20e-6 + 4 * 8e-9 * in.bytes, 1e-12);  // 4 flows leave node 0 at once
  EXPECT_NEAR(f[1], 1e-6 + 1e-10 * in.bytes, 1e-12);      // an intra-node copy
}

}  // namespace
}  // namespace papcoll
