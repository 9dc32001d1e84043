// Scatterv/gatherv trees (docs/algorithms.md, "Scatterv and gatherv"): every tree verifies for
// p = 1..64 with random counts (zeros included) and random link models, delivers every portion
// exactly once, has the documented shape, and `auto` is never predicted slower than any tree.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>

#include "model/link_model.hpp"
#include "schedule/bcast/binomial_tree.hpp"
#include "schedule/portions.hpp"
#include "schedule/registry.hpp"
#include "schedule/scatter_gather/scatter_gather_generators.hpp"
#include "schedule/scatter_gather/sg_partition.hpp"
#include "schedule/schedule_io.hpp"
#include "test_schedules.hpp"
#include "verify/cost_model.hpp"
#include "verify/verifier.hpp"

namespace papcoll {
namespace {

constexpr Collective kBoth[] = {Collective::scatterv, Collective::gatherv};

std::vector<long long> random_counts(std::mt19937_64& rng, int p) {
  std::vector<long long> c(static_cast<size_t>(p));
  const long long scale = std::uniform_int_distribution<long long>(1, 1 << 20)(rng);
  for (long long& x : c) x = rng() % 4 == 0 ? 0 : static_cast<long long>(rng() % scale);
  return c;
}

// Either independent random links or clusters (fast inside, slow between) with noise: the two
// kinds of platform of the paper's experiments (Sect. 3).
std::shared_ptr<const LinkModel> random_model(std::mt19937_64& rng, int p) {
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> a(static_cast<size_t>(p) * p), b(a.size());
  const bool clustered = rng() % 2 == 0;
  const int clusters = 1 + static_cast<int>(rng() % 4);
  for (int i = 0; i < p; ++i)
    for (int j = 0; j < p; ++j) {
      const size_t k = static_cast<size_t>(i) * p + j;
      if (clustered) {
        const bool near = i % clusters == j % clusters;
        a[k] = (near ? 2e-6 : 5e-5) * (1 + 0.2 * u(rng));
        b[k] = (near ? 1e-10 : 2e-9) * (1 + 0.2 * u(rng));
      } else {
        a[k] = 1e-6 + 1e-4 * u(rng);
        b[k] = 1e-10 + 1e-8 * u(rng);
      }
    }
  return LinkModel::from_matrices(p, a, b).model;
}

GeneratorInput random_scatter_gather_input(std::mt19937_64& rng, int p) {
  GeneratorInput in;
  in.p = p;
  in.blocks = p;
  in.root = static_cast<int>(rng() % static_cast<uint64_t>(p));
  in.counts = random_counts(rng, p);
  in.elem_bytes = rng() % 2 ? 8 : 4;
  if (rng() % 4 != 0) in.link_model = random_model(rng, p);
  return in;
}

// Postcondition (the verifier) plus: every non-root rank receives (scatter) or sends (gather)
// exactly one message, and every portion reaches its destination exactly once.
::testing::AssertionResult tree_ok(Collective c, SgTreeKind k, const GeneratorInput& in) {
  const Schedule s = sg_schedule(c, k, in);
  auto failure = [&]() {
    return ::testing::AssertionFailure() << collective_name(c) << ' ' << sg_tree_name(k)
                                         << " p=" << in.p << " root=" << in.root << ": ";
  };
  const VerifyResult v = verify_schedule(s);
  if (!v.ok) return failure() << v.error;
  const int root = in.root < 0 ? 0 : in.root;
  if (s.collective != c || s.root != root || s.blocks != in.p || s.algorithm != sg_tree_name(k))
    return failure() << "wrong header";
  std::vector<int> messages(static_cast<size_t>(in.p), 0), delivered(static_cast<size_t>(in.p), 0);
  for (const RankSchedule& r : s.ranks)
    for (const Op& op : r.ops) {
      const bool into_tree_edge = c == Collective::scatterv ? op.kind == OpKind::recv
                                                            : op.kind == OpKind::send;
      if (into_tree_edge) ++messages[r.rank];
      if (op.kind != OpKind::recv) continue;
      for (int b : op.blocks.ids())
        if ((c == Collective::scatterv && b == r.rank) ||
            (c == Collective::gatherv && r.rank == root))
          ++delivered[b];
    }
  for (int r = 0; r < in.p; ++r) {
    const int want = r == root ? 0 : 1;
    if (messages[r] != want)
      return failure() << "rank " << r << " has " << messages[r] << " tree messages";
    if (delivered[r] != want)
      return failure() << "portion " << r << " delivered " << delivered[r] << " times";
  }
  return ::testing::AssertionSuccess();
}

double cost_of(const Schedule& s, const GeneratorInput& in) {
  return evaluate_cost(s, {}, in.cost, portion_bytes(in), in.link_model.get()).max_finish;
}

TEST(ScatterGatherTrees, EveryTreeVerifiesForPUpTo64WithRandomCountsAndModels) {
  std::mt19937_64 rng(2010);
  for (int p = 1; p <= 64; ++p)
    for (int instance = 0; instance < 3; ++instance) {
      const GeneratorInput in = random_scatter_gather_input(rng, p);
      for (Collective c : kBoth)
        for (SgTreeKind k : kSgTreeKinds) ASSERT_TRUE(tree_ok(c, k, in));
    }
}

TEST(ScatterGatherTrees, EveryRootOfSmallPAndDegenerateCounts) {
  std::mt19937_64 rng(7);
  for (int p = 1; p <= 12; ++p)
    for (int root = 0; root < p; ++root) {
      GeneratorInput in = random_scatter_gather_input(rng, p);
      in.root = root;
      std::vector<std::vector<long long>> counts = {
          {}, std::vector<long long>(static_cast<size_t>(p), 0), in.counts};
      counts.push_back(std::vector<long long>(static_cast<size_t>(p), 0));
      counts.back()[static_cast<size_t>(p - 1)] = 1 << 20;  // one rank holds everything
      for (const auto& cs : counts) {
        in.counts = cs;
        in.bytes = 1000;
        for (Collective c : kBoth)
          for (SgTreeKind k : kSgTreeKinds) ASSERT_TRUE(tree_ok(c, k, in));
      }
    }
}

TEST(ScatterGatherTrees, SameInputSameScheduleAndRegistryRows) {
  std::mt19937_64 rng(11);
  for (int p : {5, 17, 40}) {
    const GeneratorInput in = random_scatter_gather_input(rng, p);
    for (Collective c : kBoth)
      for (SgTreeKind k : kSgTreeKinds) {
        const AlgorithmInfo* info = find_algorithm(c, sg_tree_name(k));
        ASSERT_NE(info, nullptr) << sg_tree_name(k);
        EXPECT_FALSE(info->uses_arrivals);
        std::ostringstream a, b;
        write_schedule_json(a, generate_schedule(*info, in));
        write_schedule_json(b, sg_schedule(c, k, in));
        EXPECT_EQ(a.str(), b.str());
      }
  }
}

// AlgorithmInfo::uses_link_model (which the interposition library follows when it passes
// PAPCOLL_MODEL on) is set exactly for the trees whose schedule depends on the link model.
TEST(ScatterGatherTrees, RegistryMarksExactlyTheTreesThatReadTheModel) {
  std::mt19937_64 rng(12);
  for (Collective c : kBoth)
    for (SgTreeKind k : kSgTreeKinds) {
      const AlgorithmInfo* info = find_algorithm(c, sg_tree_name(k));
      ASSERT_NE(info, nullptr);
      bool differs = false;
      for (int trial = 0; trial < 40 && !differs; ++trial) {
        GeneratorInput a = random_scatter_gather_input(rng, 17);
        GeneratorInput b = a;
        a.link_model = random_model(rng, 17);
        b.link_model = random_model(rng, 17);
        std::ostringstream ja, jb;
        write_schedule_json(ja, generate_schedule(*info, a));
        write_schedule_json(jb, generate_schedule(*info, b));
        differs = ja.str() != jb.str();
      }
      EXPECT_EQ(differs, info->uses_link_model) << sg_tree_name(k);
    }
}

TEST(ScatterGatherTrees, BadInputIsRefused) {
  GeneratorInput in;
  in.p = 4;
  in.root = 4;
  EXPECT_THROW(sg_schedule(Collective::scatterv, SgTreeKind::binomial, in), std::invalid_argument);
  in.root = 0;
  in.counts = {1, 2, 3};
  EXPECT_THROW(sg_schedule(Collective::gatherv, SgTreeKind::traff, in), std::invalid_argument);
  in.counts = {1, 2, -3, 4};
  EXPECT_THROW(sg_schedule(Collective::gatherv, SgTreeKind::traff, in), std::invalid_argument);
  in.counts.clear();
  in.link_model = LinkModel::homogeneous(5, 1e-6, 1e-9).model;
  EXPECT_THROW(sg_schedule(Collective::scatterv, SgTreeKind::traff_model, in),
               std::invalid_argument);
}

// The trees' own prediction is the cost model's time of their schedule, bit for bit.
TEST(ScatterGatherTrees, PredictionIsTheCostModelsTime) {
  std::mt19937_64 rng(5);
  for (int p = 1; p <= 48; p += 1) {
    const GeneratorInput in = random_scatter_gather_input(rng, p);
    for (Collective c : kBoth) {
      const SgProblem problem(c, in);
      for (SgTreeKind k : kSgTreeKinds) {
        const SgTree t = build_sg_tree(k, problem);
        EXPECT_EQ(predicted_tree_time(t, problem), cost_of(tree_schedule(t, problem, "x"), in))
            << collective_name(c) << ' ' << sg_tree_name(k) << " p=" << p;
      }
    }
  }
}

TEST(ScatterGatherAuto, NeverPredictedSlowerThanAnyTree) {
  std::mt19937_64 rng(13);
  for (int p = 1; p <= 64; p += (p < 16 ? 1 : 5)) {
    for (int instance = 0; instance < 3; ++instance) {
      const GeneratorInput in = random_scatter_gather_input(rng, p);
      for (Collective c : kBoth) {
        const SgChoice choice = choose_sg_tree(c, in);
        ASSERT_NE(choice.algorithm, nullptr);
        EXPECT_EQ(choice.algorithm->name, std::string(sg_tree_name(choice.kind)));
        const double chosen = cost_of(generate_schedule(*choice.algorithm, in), in);
        EXPECT_EQ(chosen, choice.predicted);
        for (SgTreeKind k : kSgTreeKinds)
          EXPECT_LE(chosen, cost_of(sg_schedule(c, k, in), in))
              << collective_name(c) << " auto=" << sg_tree_name(choice.kind) << " vs "
              << sg_tree_name(k) << " p=" << p;
      }
    }
  }
}

// --- shapes ---------------------------------------------------------------------------------

std::vector<int> parents_of(const SgTree& t) { return t.parent; }

// One-ported, a binomial tree takes ceil(log2 p) rounds; its height is the largest number of set
// bits of a virtual rank below p (at most ceil(log2 p)), whatever the mapping.
TEST(ScatterGatherShapes, BinomialTreesTakeCeilLog2PRounds) {
  std::mt19937_64 rng(17);
  for (int p = 1; p <= 64; ++p) {
    const GeneratorInput in = random_scatter_gather_input(rng, p);
    int height = 0;
    for (int v = 0; v < p; ++v) height = std::max(height, __builtin_popcount(v));
    for (Collective c : kBoth) {
      const SgProblem problem(c, in);
      for (BinomialMapping m :
           {BinomialMapping::rank_order, BinomialMapping::min_first, BinomialMapping::max_first}) {
        const SgTree t = binomial_sg_tree(problem, m);
        EXPECT_EQ(tree_depth(t), height) << p;
        int64_t rounds = 0;
        for (const RankSchedule& r : tree_schedule(t, problem, "x").ranks)
          for (const Step& st : r.steps) rounds = std::max(rounds, st.round + 1);
        EXPECT_EQ(rounds, int64_t{binomial::depth(p)}) << p;
      }
    }
    // Rank order: virtual rank v is rank (v + root) mod p, with parent v - lowbit(v); the root
    // sends to virtual 2^(q-1) first and to 1 last.
    const SgProblem problem(Collective::scatterv, in);
    const SgTree plain = binomial_sg_tree(problem, BinomialMapping::rank_order);
    const int root = problem.root();
    for (int v = 1; v < p; ++v) EXPECT_EQ(plain.parent[(v + root) % p], (v - (v & -v) + root) % p);
    std::vector<int> first_level;
    for (int bit = p > 1 ? 1 << (binomial::depth(p) - 1) : 0; bit >= 1; bit /= 2)
      first_level.push_back((bit + root) % p);
    EXPECT_EQ(plain.children[root], first_level) << p;
  }
}

// Two clusters {0..3} and {4..7}: a message inside costs 1, between costs 10 (beta = 0, equal
// counts). The nodes are filled in virtual-rank order 1..7, each taking the free rank with the
// smallest (min-first) or largest (max-first) t(parent, i, m_i), ties to the lower rank.
TEST(ScatterGatherShapes, MinFirstAndMaxFirstPickAsSpecified) {
  const int p = 8;
  std::vector<double> a(64), b(64, 0.0);
  for (int i = 0; i < p; ++i)
    for (int j = 0; j < p; ++j) a[static_cast<size_t>(i) * p + j] = (i / 4 == j / 4) ? 1 : 10;
  GeneratorInput in;
  in.p = p;
  in.root = 0;
  in.counts.assign(p, 100);
  in.link_model = LinkModel::from_matrices(p, a, b).model;
  const SgProblem problem(Collective::scatterv, in);
  // Min-first: 1, 2, then 3 under 2 (same cluster), then cluster B as the subtree of virtual 4.
  EXPECT_EQ(parents_of(binomial_sg_tree(problem, BinomialMapping::min_first)),
            (std::vector<int>{-1, 0, 0, 2, 0, 4, 4, 6}));
  // Max-first: virtual 1..7 become 4, 5, 1 (under 5), 6, 2 (under 6), 3 (under 6), 7 (under 3).
  EXPECT_EQ(parents_of(binomial_sg_tree(problem, BinomialMapping::max_first)),
            (std::vector<int>{-1, 5, 6, 6, 0, 0, 0, 3}));
  const double min_first =
      predicted_tree_time(binomial_sg_tree(problem, BinomialMapping::min_first), problem);
  const double max_first =
      predicted_tree_time(binomial_sg_tree(problem, BinomialMapping::max_first), problem);
  EXPECT_LT(min_first, max_first);  // the hierarchy case of Sect. 2: one slow message only
}

TEST(ScatterGatherShapes, TraffPartitionCutsWhenTheSubsetOutweighsTheOnesBefore) {
  const std::vector<int> seven = {1, 2, 3, 4, 5, 6, 7};
  using Sets = std::vector<std::vector<int>>;
  EXPECT_EQ(traff_partition(seven, std::vector<double>(7, 3.0)), (Sets{{1}, {2, 3}, {4, 5, 6, 7}}));
  EXPECT_EQ(traff_partition(seven, std::vector<double>(7, 0.0)), (Sets{{1}, {2, 3}, {4, 5, 6, 7}}));
  EXPECT_EQ(traff_partition({1, 2, 3, 4, 5, 6}, {5, 3, 2, 2, 1, 1}),
            (Sets{{1}, {2, 3}, {4, 5, 6}}));
  EXPECT_EQ(traff_partition({1, 2, 3, 4}, {8, 0, 0, 0}), (Sets{{1}, {2, 3, 4}}));
  EXPECT_EQ(traff_partition({1, 2, 3, 4}, {8, 9, 0, 0}), (Sets{{1}, {2}, {3, 4}}));
  EXPECT_EQ(traff_partition({}, {}), Sets{});
}

// Counts 10, 2, 3, 40, 5, 6, root 2: by size 3, 0, 5, 4, 1; subsets {3} and {0, 5, 4, 1} (23 never
// exceeds 40); below 0: {5}, {4, 1}. Heaviest subset first.
TEST(ScatterGatherShapes, TraffTreeOnAHandExample) {
  GeneratorInput in;
  in.p = 6;
  in.root = 2;
  in.counts = {10, 2, 3, 40, 5, 6};
  const SgTree t = traff_sg_tree(SgProblem(Collective::scatterv, in));
  EXPECT_EQ(t.children[2], (std::vector<int>{0, 3}));
  EXPECT_EQ(t.children[0], (std::vector<int>{4, 5}));
  EXPECT_EQ(t.children[4], (std::vector<int>{1}));
  EXPECT_TRUE(t.children[1].empty() && t.children[3].empty() && t.children[5].empty());
}

// Träff's graceful degradation: equal counts (zero included) give the binomial tree; with root 0
// even the same schedule. The model-based tree does too under a homogeneous model.
TEST(ScatterGatherShapes, EqualCountsGiveTheBinomialTree) {
  for (int p = 1; p <= 64; ++p)
    for (long long count : {0LL, 1000LL}) {
      GeneratorInput in;
      in.p = p;
      in.root = 0;
      in.counts.assign(static_cast<size_t>(p), count);
      const SgProblem problem(Collective::scatterv, in);
      const std::vector<int> binomial =
          binomial_sg_tree(problem, BinomialMapping::rank_order).parent;
      EXPECT_EQ(traff_sg_tree(problem).parent, binomial) << p;
      EXPECT_EQ(traff_model_sg_tree(problem).parent, binomial) << p;
      EXPECT_EQ(traff_sg_tree(problem).children,
                binomial_sg_tree(problem, BinomialMapping::rank_order).children);
    }
}

// Without latency the predicted weights are proportional to the sizes, and every candidate head
// moves its subset equally fast: the model-based tree is Träff's.
TEST(ScatterGatherShapes, TraffModelIsTraffWithoutLatencyOnAHomogeneousNetwork) {
  std::mt19937_64 rng(23);
  for (int p = 1; p <= 64; ++p) {
    GeneratorInput in = random_scatter_gather_input(rng, p);
    in.link_model = LinkModel::homogeneous(p, 0.0, 1e-9).model;
    for (Collective c : kBoth) {
      const SgProblem problem(c, in);
      EXPECT_EQ(traff_model_sg_tree(problem).children, traff_sg_tree(problem).children) << p;
    }
  }
}

// Root 0 sees ranks 1..4 at latencies 4, 3, 2, 1 (everything else 1, beta 0, equal counts):
// sorted 1, 2, 3, 4; subsets {1}, {2, 3} (5 > 4), {4}; the head of {2, 3} is 3, the faster link
// from the root (Träff's tree would take 2, the first).
TEST(ScatterGatherShapes, TraffModelHeadIsTheFastestForTheWholeSubset) {
  const int p = 5;
  std::vector<double> a(25, 1.0), b(25, 0.0);
  for (int i = 1; i < p; ++i) a[static_cast<size_t>(i)] = 5 - i;
  GeneratorInput in;
  in.p = p;
  in.root = 0;
  in.counts.assign(p, 7);
  in.link_model = LinkModel::from_matrices(p, a, b).model;
  const SgTree t = traff_model_sg_tree(SgProblem(Collective::scatterv, in));
  EXPECT_EQ(t.children[0], (std::vector<int>{4, 3, 1}));
  EXPECT_EQ(t.children[3], (std::vector<int>{2}));
  const SgTree plain = traff_sg_tree(SgProblem(Collective::scatterv, in));
  EXPECT_EQ(plain.children[0], (std::vector<int>{4, 2, 1}));  // equal counts: binomial
}

// Gather is scatter backwards: on a symmetric network the same edges carry the same blocks the
// other way, in reversed rounds.
TEST(ScatterGatherShapes, GatherIsTheScatterTreeReversed) {
  std::mt19937_64 rng(29);
  for (int p = 1; p <= 40; ++p) {
    GeneratorInput in = random_scatter_gather_input(rng, p);
    std::vector<double> a(static_cast<size_t>(p) * p), b(a.size());
    for (int i = 0; i < p; ++i)
      for (int j = 0; j <= i; ++j) {
        a[static_cast<size_t>(i) * p + j] = a[static_cast<size_t>(j) * p + i] = 1e-6 *
                                                                                (1 + rng() % 50);
        b[static_cast<size_t>(i) * p + j] = b[static_cast<size_t>(j) * p + i] = 1e-10 *
                                                                                (1 + rng() % 50);
      }
    in.link_model = LinkModel::from_matrices(p, a, b).model;
    for (SgTreeKind k : kSgTreeKinds) {
      using Transfer = std::tuple<int, int, std::vector<int>>;
      std::map<int, std::set<Transfer>> scatter, gather;
      for (const RankSchedule& r : sg_schedule(Collective::scatterv, k, in).ranks)
        for (const Step& st : r.steps)
          for (const Op& op : r.ops_of(st))
            if (op.kind == OpKind::send)
              scatter[st.round].insert({r.rank, op.peer, op.blocks.ids()});
      for (const RankSchedule& r : sg_schedule(Collective::gatherv, k, in).ranks)
        for (const Step& st : r.steps)
          for (const Op& op : r.ops_of(st))
            if (op.kind == OpKind::send)
              gather[st.round].insert({op.peer, r.rank, op.blocks.ids()});
      const int last = scatter.empty() ? 0 : scatter.rbegin()->first;
      std::map<int, std::set<Transfer>> reversed;
      for (const auto& [round, set] : gather) reversed[last - round] = set;
      EXPECT_EQ(reversed, scatter) << sg_tree_name(k) << " p=" << p;
    }
  }
}

// --- cost model and verifier ------------------------------------------------------------------

TEST(ScatterGatherCost, PerPairLinksAndPerBlockSizes) {
  // Flat scatter from 0: 1 gets 100 bytes over (1, 0.01), then 2 gets 300 over (2, 0.001).
  std::vector<double> a(9, 99.0), b(9, 99.0);
  a[1] = 1;
  b[1] = 0.01;
  a[2] = 2;
  b[2] = 0.001;
  GeneratorInput in;
  in.p = 3;
  in.root = 0;
  in.counts = {50, 100, 300};
  in.link_model = LinkModel::from_matrices(3, a, b).model;
  const Schedule s = sg_schedule(Collective::scatterv, SgTreeKind::linear, in);
  const CostResult r = evaluate_cost(s, {}, in.cost, portion_bytes(in), in.link_model.get());
  EXPECT_DOUBLE_EQ(r.ranks[1].finish, 2.0);
  EXPECT_DOUBLE_EQ(r.ranks[2].finish, 2.0 + 2.3);
  EXPECT_DOUBLE_EQ(r.max_finish, 4.3);
}

TEST(ScatterGatherCost, UniformBlocksAndNoLinksGiveTheClassicCost) {
  for (const char* name : {"ring", "rabenseifner", "linear"}) {
    GeneratorInput in;
    in.p = 7;
    in.blocks = 7;
    const Schedule s = generate_schedule(*find_algorithm(Collective::allreduce, name), in);
    const int64_t bytes = 7000;
    std::vector<double> block_bytes;
    for (int b = 0; b < s.blocks; ++b)
      block_bytes.push_back(static_cast<double>(block_range(bytes, s.blocks, b).count));
    const std::vector<double> arrivals = {0, 1e-5, 0, 3e-6, 0, 0, 2e-5};
    const CostResult old_way = evaluate_cost(s, arrivals, in.cost, bytes);
    const CostResult new_way = evaluate_cost(s, arrivals, in.cost, block_bytes, nullptr);
    const LinkModelResult h = LinkModel::homogeneous(7, in.cost.alpha, in.cost.beta);
    const CostResult with_model = evaluate_cost(s, arrivals, in.cost, block_bytes, h.model.get());
    for (int r = 0; r < 7; ++r) {
      EXPECT_EQ(old_way.ranks[r].finish, new_way.ranks[r].finish) << name;
      EXPECT_EQ(old_way.ranks[r].finish, with_model.ranks[r].finish) << name;
    }
  }
}

TEST(ScatterGatherVerifier, NeedsOneBlockPerRank) {
  GeneratorInput in;
  in.p = 5;
  Schedule s = sg_schedule(Collective::scatterv, SgTreeKind::binomial, in);
  s.blocks = 4;
  const VerifyResult v = verify_schedule(s);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.error.find("one block per rank"), std::string::npos) << v.error;
  // A rank left out of a scatter is caught.
  Schedule missing = sg_schedule(Collective::scatterv, SgTreeKind::linear, in);
  for (RankSchedule& r : missing.ranks)
    r = without_ops(r, [&](const Step&, const Op& op) { return op.peer == 3 || r.rank == 3; });
  EXPECT_FALSE(verify_schedule(missing).ok);
}

}  // namespace
}  // namespace papcoll
