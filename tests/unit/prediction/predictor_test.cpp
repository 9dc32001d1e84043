// The progress monitor's pure logic (no MPI): history predictors, the edge estimate and the
// sanitising rules that make every rank's arrival vector identical and sane.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "prediction/agreement.hpp"
#include "prediction/predictor.hpp"
#include "schedule/registry.hpp"
#include "verify/verifier.hpp"

namespace papcoll::prediction {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

bool bit_identical(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

Predictor make(PredictorKind k, int window = 4, double alpha = 0.5) {
  PredictorConfig c;
  c.kind = k;
  c.window = window;
  c.ema_alpha = alpha;
  return Predictor(c);
}

// ---- predictors ---------------------------------------------------------------------------

TEST(Predictor, EmptyPredictsNothing) {
  for (PredictorKind k : {PredictorKind::last, PredictorKind::sma, PredictorKind::ema}) {
    Predictor p = make(k);
    EXPECT_TRUE(p.empty());
    EXPECT_TRUE(p.predict().empty());
  }
}

TEST(Predictor, LastValueIsTheLastPatternShifted) {
  Predictor p = make(PredictorKind::last);
  p.feed({0.0, 0.02, 0.0});
  p.feed({0.01, 0.0, 0.03});
  EXPECT_EQ(p.predict(), (std::vector<double>{0.01, 0.0, 0.03}));
  p.feed({0.5, 0.6, 0.7});  // shifted to the earliest
  const std::vector<double> r = p.predict();
  EXPECT_DOUBLE_EQ(r[0], 0.0);
  EXPECT_NEAR(r[1], 0.1, 1e-15);
  EXPECT_NEAR(r[2], 0.2, 1e-15);
}

TEST(Predictor, SmaAveragesTheLastWindow) {
  Predictor p = make(PredictorKind::sma, 2);
  p.feed({0.0, 4.0});
  EXPECT_EQ(p.predict(), (std::vector<double>{0.0, 4.0}));
  p.feed({0.0, 2.0});
  EXPECT_EQ(p.predict(), (std::vector<double>{0.0, 3.0}));
  p.feed({0.0, 0.0});  // the first falls out of the window
  EXPECT_EQ(p.predict(), (std::vector<double>{0.0, 1.0}));
  EXPECT_EQ(p.fed(), 3);
}

TEST(Predictor, SmaOfMovingEarliestIsShiftedAgain) {
  Predictor p = make(PredictorKind::sma, 2);
  p.feed({0.0, 2.0});
  p.feed({2.0, 0.0});
  EXPECT_EQ(p.predict(), (std::vector<double>{0.0, 0.0}));
}

TEST(Predictor, EmaWeighsTheNewest) {
  Predictor p = make(PredictorKind::ema, 4, 0.25);
  p.feed({0.0, 4.0});
  EXPECT_EQ(p.predict(), (std::vector<double>{0.0, 4.0}));
  p.feed({0.0, 0.0});
  EXPECT_EQ(p.predict(), (std::vector<double>{0.0, 3.0}));
}

TEST(Predictor, NewestIsTheLastFedPatternShiftedForEveryKind) {
  // The history's sampling predicts a confirmation call from the newest pattern alone
  // (Monitor::sample_locked), whatever the predictor.
  for (PredictorKind k : {PredictorKind::last, PredictorKind::sma, PredictorKind::ema}) {
    Predictor pr(PredictorConfig{k, 4, 0.5});
    EXPECT_TRUE(pr.newest().empty());
    pr.feed({1.0, 5.0, 2.0});
    pr.feed({3.0, 2.0, 9.0});
    EXPECT_EQ(pr.newest(), (std::vector<double>{1.0, 0.0, 7.0})) << static_cast<int>(k);
  }
}

TEST(Predictor, EveryKindConvergesToASteadyPattern) {
  const std::vector<double> steady{0.0, 0.02, 0.0, 0.0};
  for (PredictorKind k : {PredictorKind::last, PredictorKind::sma, PredictorKind::ema}) {
    Predictor p = make(k, 4, 0.5);
    p.feed({0.0, 0.0, 0.5, 0.0});  // an outlier first
    for (int i = 0; i < 40; ++i) p.feed(steady);
    const std::vector<double> r = p.predict();
    ASSERT_EQ(r.size(), steady.size());
    for (size_t i = 0; i < r.size(); ++i) EXPECT_NEAR(r[i], steady[i], 1e-9) << static_cast<int>(k);
  }
}

TEST(Predictor, LengthChangeRestarts) {
  Predictor p = make(PredictorKind::sma, 4);
  p.feed({0.0, 1.0});
  p.feed({0.0, 1.0, 2.0});
  EXPECT_EQ(p.fed(), 1);
  EXPECT_EQ(p.predict(), (std::vector<double>{0.0, 1.0, 2.0}));
}

TEST(Predictor, SameFeedsGiveBitIdenticalPredictions) {
  // What agreement rests on: two ranks feeding the same data in the same order agree bit for bit,
  // also with values whose sums round.
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0.0, 0.1);
  for (PredictorKind k : {PredictorKind::last, PredictorKind::sma, PredictorKind::ema}) {
    Predictor a = make(k, 5, 0.3), b = make(k, 5, 0.3);
    for (int i = 0; i < 200; ++i) {
      std::vector<double> v(13);
      for (double& x : v) x = u(rng);
      a.feed(v);
      b.feed(v);
      ASSERT_TRUE(bit_identical(a.predict(), b.predict()));
    }
  }
}

TEST(HistoryTable, SitesAreSeparate) {
  HistoryTable t;
  t.feed(1, {0.0, 1.0});
  t.feed(2, {3.0, 0.0});
  EXPECT_EQ(t.predict(1), (std::vector<double>{0.0, 1.0}));
  EXPECT_EQ(t.predict(2), (std::vector<double>{3.0, 0.0}));
  EXPECT_TRUE(t.predict(3).empty());
}

TEST(HistoryTable, EvictsTheLeastRecentlyUsedSite) {
  HistoryTable t(PredictorConfig{}, 2);
  t.feed(1, {0.0, 1.0});
  t.feed(2, {0.0, 2.0});
  (void)t.predict(1);     // 1 is now more recent than 2
  t.feed(3, {0.0, 3.0});  // evicts 2
  EXPECT_EQ(t.sites(), 2u);
  EXPECT_FALSE(t.predict(1).empty());
  EXPECT_TRUE(t.predict(2).empty());
  EXPECT_FALSE(t.predict(3).empty());
}

// ---- the edge estimate --------------------------------------------------------------------

TEST(Estimate, PaperFormula) {
  EXPECT_DOUBLE_EQ(estimate_remaining(0.015, 0.5), 0.015);
  EXPECT_DOUBLE_EQ(estimate_remaining(0.01, 0.25), 0.03);
  EXPECT_DOUBLE_EQ(estimate_remaining(0.02, 1.0), 0.0);
  for (double f : {0.0, -0.5, 1.5, kNaN, kInf})
    EXPECT_TRUE(std::isnan(estimate_remaining(0.01, f))) << f;
  EXPECT_TRUE(std::isnan(estimate_remaining(-1.0, 0.5)));
  EXPECT_TRUE(std::isnan(estimate_remaining(kNaN, 0.5)));
}

// ---- sanitising ---------------------------------------------------------------------------

Contribution edge_c(double value, double ctime, double seq = 0) {
  return Contribution{value, ctime, static_cast<double>(ContributionKind::edge), seq};
}
Contribution entry_c(double t, double seq = 0) {
  return Contribution{t, t, static_cast<double>(ContributionKind::entry), seq};
}

TEST(Sanitize, NormalEdgeExchangeGivesTheEstimates) {
  // Fig. 9 with 4 ranks: edge at 15 ms (rank 1 at 25 ms), arrivals at 30 ms and 50 ms.
  const std::vector<Contribution> c{edge_c(0.030, 0.015), edge_c(0.050, 0.025),
                                    edge_c(0.030, 0.015), edge_c(0.030, 0.015)};
  const AgreedPattern a = sanitize_contributions(c);
  ASSERT_TRUE(a.usable);
  EXPECT_TRUE(a.all_edge);
  EXPECT_EQ(a.unknown, 0);
  ASSERT_EQ(a.relative.size(), 4u);
  EXPECT_EQ(a.relative[0], 0.0);
  EXPECT_NEAR(a.relative[1], 0.020, 1e-15);
  EXPECT_EQ(a.relative[2], 0.0);
}

TEST(Sanitize, NoRankStartsBeforeTheLastContribution) {
  // Rank 1 never called edge: it contributed its arrival (60 ms) at entry, so the exchange ends
  // then and the others, predicted at 30 ms, cannot start earlier: everyone is at 60 ms.
  const std::vector<Contribution> c{edge_c(0.030, 0.015), entry_c(0.060), edge_c(0.030, 0.015)};
  const AgreedPattern a = sanitize_contributions(c);
  ASSERT_TRUE(a.usable);
  EXPECT_FALSE(a.all_edge);
  EXPECT_EQ(a.relative, (std::vector<double>{0.0, 0.0, 0.0}));
}

TEST(Sanitize, UnknownTakesTheLatestBelievedValue) {
  for (double bad : {kNaN, kInf, -kInf, 1e300, -1e300, 1e7}) {
    const std::vector<Contribution> c{edge_c(0.030, 0.015), edge_c(bad, 0.016),
                                      edge_c(0.040, 0.015), edge_c(0.030, 0.015)};
    const AgreedPattern a = sanitize_contributions(c);
    ASSERT_TRUE(a.usable) << bad;
    EXPECT_EQ(a.unknown, 1) << bad;
    ASSERT_EQ(a.relative.size(), 4u);
    EXPECT_NEAR(a.relative[1], 0.010, 1e-15) << bad;  // as late as rank 2
    EXPECT_NEAR(a.relative[2], 0.010, 1e-15) << bad;
    EXPECT_EQ(a.relative[0], 0.0) << bad;
  }
}

TEST(Sanitize, NegativeEstimateMeansAlreadyThere) {
  // remaining = -5 s: arrival in the past, clamped to the end of the exchange.
  const std::vector<Contribution> c{edge_c(0.030, 0.015), edge_c(0.016 - 5.0, 0.016)};
  const AgreedPattern a = sanitize_contributions(c);
  ASSERT_TRUE(a.usable);
  EXPECT_EQ(a.unknown, 0);
  EXPECT_EQ(a.relative[1], 0.0);
  EXPECT_NEAR(a.relative[0], 0.014, 1e-15);
}

TEST(Sanitize, TooManyUnknownIsUnusable) {
  const std::vector<Contribution> c{edge_c(kNaN, 0.015), edge_c(kNaN, 0.015), edge_c(0.030, 0.015)};
  const AgreedPattern a = sanitize_contributions(c);
  EXPECT_FALSE(a.usable);
  EXPECT_TRUE(a.relative.empty());
  EXPECT_EQ(a.unknown, 2);
  // Half believed is enough.
  const std::vector<Contribution> d{edge_c(kNaN, 0.015), edge_c(0.030, 0.015)};
  EXPECT_TRUE(sanitize_contributions(d).usable);
}

TEST(Sanitize, ClosingContributionsAreUnknown) {
  Contribution closing;
  closing.kind = static_cast<double>(ContributionKind::closing);
  closing.seq = 0;
  const AgreedPattern a = sanitize_contributions({closing, closing});
  EXPECT_FALSE(a.usable);
  EXPECT_FALSE(a.all_edge);
}

TEST(Sanitize, DifferentCallNumbersAreUnusable) {
  const AgreedPattern a = sanitize_contributions({edge_c(0.03, 0.015, 4), edge_c(0.03, 0.015, 5)});
  EXPECT_FALSE(a.consistent);
  EXPECT_FALSE(a.usable);
  EXPECT_FALSE(a.all_edge);
}

TEST(Sanitize, GarbageContributionTimesAreIgnored) {
  const std::vector<Contribution> c{edge_c(0.030, 0.015), edge_c(0.050, kNaN), edge_c(0.030, 1e200),
                                    edge_c(0.030, 0.015)};
  const AgreedPattern a = sanitize_contributions(c);
  ASSERT_TRUE(a.usable);
  EXPECT_NEAR(a.relative[1], 0.020, 1e-15);
}

TEST(Sanitize, SingleRank) {
  const AgreedPattern a = sanitize_contributions({edge_c(1.0, 0.5)});
  ASSERT_TRUE(a.usable);
  EXPECT_EQ(a.relative, std::vector<double>{0.0});
  EXPECT_FALSE(sanitize_contributions({}).usable);
}

TEST(Sanitize, MeasuredTimes) {
  const AgreedPattern a = sanitize_measured({10.0, 10.02, 10.0, kNaN});
  ASSERT_TRUE(a.usable);
  EXPECT_EQ(a.unknown, 1);
  EXPECT_NEAR(a.relative[1], 0.02, 1e-12);
  EXPECT_NEAR(a.relative[3], 0.02, 1e-12);  // latest believed
  EXPECT_FALSE(sanitize_measured({kNaN, kNaN, 1.0}).usable);
  SanitizeParams prm;
  prm.horizon = 1.0;
  const AgreedPattern b = sanitize_measured({0.0, 0.5, 100.0}, prm);  // 100 s: not believed
  ASSERT_TRUE(b.usable);
  EXPECT_EQ(b.unknown, 1);
  EXPECT_EQ(b.relative, (std::vector<double>{0.0, 0.5, 0.5}));
}

// Property: whatever arrives (the special values, random magnitudes, random kinds), the output is
// a pure function of the input (bit-identical when recomputed), finite, >= 0, min 0, within the
// horizon; and PRR and SLT generate verifiable schedules from it.
TEST(Sanitize, AnyInputGivesASaneDeterministicVector) {
  std::mt19937_64 rng(12345);
  const double specials[] = {kNaN,
                             kInf,
                             -kInf,
                             0.0,
                             -0.0,
                             1e300,
                             -1e300,
                             1e-300,
                             3600.0,
                             -3600.0,
                             std::numeric_limits<double>::denorm_min(),
                             std::numeric_limits<double>::max()};
  auto draw = [&]() -> double {
    switch (rng() % 4) {
      case 0: return specials[rng() % std::size(specials)];
      case 1:
        return std::ldexp(static_cast<double>(rng() % 1000) - 500.0,
                          static_cast<int>(rng() % 80) - 40);
      default: return 1.0 + static_cast<double>(rng() % 100000) * 1e-6;  // plausible
    }
  };
  const AlgorithmInfo* prr = find_algorithm(Collective::allreduce, "prr");
  const AlgorithmInfo* slt = find_algorithm(Collective::allreduce, "slt");
  ASSERT_NE(prr, nullptr);
  int usable = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const int p = 1 + static_cast<int>(rng() % 12);
    std::vector<Contribution> c(static_cast<size_t>(p));
    for (Contribution& x : c) {
      x.value = draw();
      x.ctime = rng() % 3 == 0 ? draw() : 1.0;
      x.kind = static_cast<double>(1 + rng() % 3);
      x.seq = 3;
    }
    SanitizeParams prm;
    prm.horizon = rng() % 2 ? 3600.0 : 10.0;
    const AgreedPattern a = sanitize_contributions(c, prm);
    const AgreedPattern again = sanitize_contributions(c, prm);
    ASSERT_EQ(a.usable, again.usable);
    ASSERT_TRUE(bit_identical(a.relative, again.relative));
    if (!a.usable) continue;
    ++usable;
    ASSERT_EQ(static_cast<int>(a.relative.size()), p);
    double lo = kInf;
    for (double x : a.relative) {
      ASSERT_TRUE(std::isfinite(x));
      ASSERT_GE(x, 0.0);
      ASSERT_LE(x, prm.horizon);
      lo = std::min(lo, x);
    }
    ASSERT_EQ(lo, 0.0);
    if (trial % 10 == 0 && p > 1) {
      for (const AlgorithmInfo* algo : {prr, slt}) {
        GeneratorInput in;
        in.p = p;
        in.blocks = p;
        in.arrivals = a.relative;
        in.bytes = 4.0 * 1024 * 1024;
        const VerifyResult v = verify_schedule(generate_schedule(*algo, in));
        ASSERT_TRUE(v.ok) << algo->name << ": " << v.error;
      }
    }
  }
  EXPECT_GT(usable, 500);
}

TEST(PatternError, MeanAbsoluteAfterShifting) {
  EXPECT_NEAR(pattern_mean_abs_error({1.0, 1.02, 1.0, 1.0}, {0.0, 0.02, 0.0, 0.0}), 0.0, 1e-15);
  EXPECT_NEAR(pattern_mean_abs_error({0.0, 0.0, 0.0, 0.0}, {0.0, 0.02, 0.0, 0.0}), 0.005, 1e-15);
  EXPECT_TRUE(std::isnan(pattern_mean_abs_error({}, {})));
  EXPECT_TRUE(std::isnan(pattern_mean_abs_error({0.0}, {0.0, 1.0})));
}

}  // namespace
}  // namespace papcoll::prediction
