// `auto`'s O(p) estimates (AlgorithmInfo::predict, estimate.hpp) against the cost model run on the
// whole schedule, for every row that has one: balanced (the estimate must match the cost model up
// to rounding) and under the arrival patterns of the benchmarks. The rows that know nodes
// (topology_aware) are checked on node layouts in two_level_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "schedule/registry.hpp"
#include "verify/cost_model.hpp"

namespace papcoll {
namespace {

std::vector<double> random_pattern(std::mt19937_64& rng, int p, double spread) {
  std::vector<double> a(static_cast<size_t>(p), 0.0);
  std::uniform_real_distribution<double> d(0, spread);
  switch (rng() % 3) {
    case 0: a[rng() % p] = d(rng); break;  // one late
    case 1:
      for (double& x : a) x = d(rng);
      break;  // random
    default:
      for (int i = 0; i < 3; ++i) a[rng() % p] = d(rng);
      break;  // a few late
  }
  return a;
}

struct Error {
  double worst = 0, sum = 0;
  int n = 0;
  void add(double e) {
    worst = std::max(worst, std::abs(e));
    sum += std::abs(e);
    ++n;
  }
};

class Estimates : public ::testing::TestWithParam<const AlgorithmInfo*> {};

TEST_P(Estimates, CloseToTheCostModel) {
  const AlgorithmInfo& algo = *GetParam();
  ASSERT_NE(algo.predict, nullptr) << "a row with an auto role needs predict";
  std::mt19937_64 rng(17);
  Error balanced, imbalanced;
  for (int trial = 0; trial < 150; ++trial) {
    GeneratorInput in;
    in.p = 2 + static_cast<int>(rng() % 40);
    in.root = algo.collective == Collective::reduce ? static_cast<int>(rng() % in.p) : -1;
    in.bytes = static_cast<double>(1 << (12 + rng() % 12));
    in.cost.alpha = 5e-6 + 20e-6 * (rng() % 2);
    in.cost.beta = 1e-9 * (1 + rng() % 8);
    in.cost.gamma = 2.5e-10;
    in.blocks = default_block_count(algo, in);
    in.round_time = block_round_time(in);
    const auto bytes = static_cast<int64_t>(in.bytes);
    {
      const double model =
          evaluate_cost(generate_schedule(algo, in), {}, in.cost, bytes).mean_elapsed;
      balanced.add(algo.predict(in) / model - 1);
    }
    const double one_message = in.cost.alpha + in.cost.beta * in.bytes;
    in.arrivals = random_pattern(rng, in.p, (1 + rng() % 20) * one_message);
    // As a call prepares it: the block count with the arrivals known (a two-level row takes the
    // count of the row it runs among the leaders, which the arrivals choose).
    in.blocks = default_block_count(algo, in);
    in.round_time = block_round_time(in);
    const double model =
        evaluate_cost(generate_schedule(algo, in), in.arrivals, in.cost, bytes).mean_elapsed;
    imbalanced.add(algo.predict(in) / model - 1);
  }
  std::cout << "[ info ] " << collective_name(algo.collective) << ' ' << algo.name
            << ": estimate / cost model - 1: balanced mean " << balanced.sum / balanced.n
            << " worst " << balanced.worst << "; with arrivals mean "
            << imbalanced.sum / imbalanced.n << " worst " << imbalanced.worst << "\n";
  EXPECT_LT(balanced.worst, 0.25);
  EXPECT_LT(imbalanced.worst, 0.25);
}

INSTANTIATE_TEST_SUITE_P(All, Estimates, ::testing::ValuesIn([] {
                           std::vector<const AlgorithmInfo*> v;
                           for (const AlgorithmInfo& a : all_algorithms())
                             // Rows that know nodes are estimated on node layouts
                             // (two_level_test.cpp, EstimatesOnNodes).
                             if (a.auto_role != AutoRole::none && !a.topology_aware)
                               v.push_back(&a);
                           return v;
                         }()),
                         [](const auto& i) {
                           std::string n = std::string(collective_name(i.param->collective)) + "_" +
                                           i.param->name;
                           for (char& c : n)
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

}  // namespace
}  // namespace papcoll
