// What papcoll-model measure and the library's model cache are built from: the round-robin
// rounds (every pair once, every rank in at most one pair per round), the Hockney line fit with
// its confidence intervals, and the per-communicator cache of link models.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "model/hockney_fit.hpp"
#include "model/link_model_cache.hpp"
#include "model/pair_rounds.hpp"

namespace papcoll {
namespace {

TEST(PairRounds, EveryPairOnceEveryRankAtMostOncePerRound) {
  EXPECT_TRUE(round_robin_rounds(1).empty());
  for (int p = 2; p <= 41; ++p) {
    const auto rounds = round_robin_rounds(p);
    EXPECT_EQ(static_cast<int>(rounds.size()), p % 2 == 0 ? p - 1 : p) << p;
    std::set<std::pair<int, int>> met;
    for (const auto& round : rounds) {
      std::set<int> busy;
      // Every rank busy (one sits out when p is odd).
      EXPECT_EQ(static_cast<int>(round.size()), p / 2) << p;
      for (const auto& [a, b] : round) {
        EXPECT_LT(a, b);
        EXPECT_GE(a, 0);
        EXPECT_LT(b, p);
        EXPECT_TRUE(busy.insert(a).second) << "rank " << a << " twice in a round, p=" << p;
        EXPECT_TRUE(busy.insert(b).second) << "rank " << b << " twice in a round, p=" << p;
        EXPECT_TRUE(met.insert({a, b}).second) << a << "," << b << " met twice, p=" << p;
      }
    }
    EXPECT_EQ(met.size(), static_cast<size_t>(p) * (p - 1) / 2) << p;
  }
}

TEST(PairRounds, Deterministic) { EXPECT_EQ(round_robin_rounds(9), round_robin_rounds(9)); }

TEST(HockneyFit, ExactLine) {
  const std::vector<double> x{0, 1024, 65536, 262144},
      y{5e-6, 5e-6 + 1024e-9, 5e-6 + 65536e-9, 5e-6 + 262144e-9};
  for (const std::vector<double>& w : {std::vector<double>{}, relative_weights(x, y)}) {
    const LineFit f = fit_line(x, y, w);
    ASSERT_TRUE(f.ok);
    EXPECT_NEAR(f.intercept, 5e-6, 1e-15);
    EXPECT_NEAR(f.slope, 1e-9, 1e-20);
    EXPECT_NEAR(f.slope_ci, 0, 1e-18);
  }
}

TEST(HockneyFit, ConfidenceIntervalsCoverTheTruthAndShrink) {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> noise(0, 0.02);  // 2% relative noise
  double previous = INFINITY;
  for (int sweeps : {2, 8, 32}) {
    std::vector<double> x, y;
    for (int s = 0; s < sweeps; ++s)
      for (double m : {1.0, 1024.0, 16384.0, 65536.0, 262144.0}) {
        x.push_back(m);
        y.push_back((4e-6 + 2e-10 * m) * (1 + noise(rng)));
      }
    const LineFit f = fit_line(x, y, relative_weights(x, y));
    ASSERT_TRUE(f.ok);
    EXPECT_LE(std::abs(f.intercept - 4e-6), f.intercept_ci * 1.5) << sweeps;
    EXPECT_LE(std::abs(f.slope - 2e-10), f.slope_ci * 1.5) << sweeps;
    const double rel =
        std::max(relative_ci(f.intercept, f.intercept_ci), relative_ci(f.slope, f.slope_ci));
    EXPECT_LT(rel, previous) << sweeps;
    previous = rel;
  }
  EXPECT_LT(previous, 0.05);
}

TEST(HockneyFit, Degenerate) {
  EXPECT_FALSE(fit_line({1, 2}, {1, 2}).ok);        // two points: no confidence interval
  EXPECT_FALSE(fit_line({3, 3, 3}, {1, 2, 3}).ok);  // one size: no slope
  EXPECT_TRUE(std::isinf(relative_ci(0, 1)));
  EXPECT_TRUE(std::isinf(relative_ci(-1e-6, 1e-9)));
  EXPECT_DOUBLE_EQ(student_t95(1), 12.706);
  EXPECT_DOUBLE_EQ(student_t95(5000), 1.96);
}

TEST(LinkModelCache, SerialsNameModelsAndTheOldestGoesFirst) {
  LinkModelCache cache;
  std::vector<std::shared_ptr<const LinkModel>> models;
  for (int i = 0; i < 10; ++i)
    models.push_back(LinkModel::homogeneous(4, 1e-6 * (i + 1), 1e-9).model);
  EXPECT_EQ(cache.next_serial(), 1u);
  EXPECT_EQ(cache.add("a", models[0]).serial, 1u);
  EXPECT_EQ(cache.add("b", models[1]).serial, 2u);
  EXPECT_EQ(cache.find_path("a")->model, models[0]);
  EXPECT_EQ(cache.find_serial(2)->path, "b");
  EXPECT_EQ(cache.find_path("c"), nullptr);
  for (int i = 2; i < 10; ++i) cache.add("m" + std::to_string(i), models[i]);
  EXPECT_EQ(cache.find_path("a"), nullptr);  // dropped: 10 added, 8 kept
  EXPECT_EQ(cache.find_serial(2), nullptr);
  EXPECT_EQ(cache.find_serial(3)->model, models[2]);
  EXPECT_EQ(cache.next_serial(), 11u);
  EXPECT_EQ(cache.add("a", models[0]).serial, 11u);  // again: a new serial, never a reused one
}

}  // namespace
}  // namespace papcoll
