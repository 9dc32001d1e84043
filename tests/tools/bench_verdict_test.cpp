// papcoll-bench's verdict (docs/papcoll-bench.md, "Verdict"): the ratio of means over paired
// iterations, its bootstrap interval, and the word it gives.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "papcoll_bench_verdict.hpp"

namespace papcoll_bench {
namespace {

// A noisy baseline: the same machine state raises both rows of a pair.
std::vector<double> baseline() {
  return {18.1, 19.4, 25.0, 18.3, 18.9, 30.2, 18.6, 19.0, 18.4, 22.7, 18.8, 19.1};
}

TEST(BenchVerdict, ProportionalRowsGiveTheExactRatioAndAPointInterval) {
  const std::vector<double> b = baseline();
  std::vector<double> a;
  for (const double x : b) a.push_back(0.8 * x);
  const PairedRatio r = paired_ratio(a, b);
  EXPECT_EQ(r.paired, 12);
  EXPECT_NEAR(r.ratio, 0.8, 1e-12);
  // Every resample's ratio of sums is 0.8: pairing removes the shared noise entirely.
  EXPECT_NEAR(r.ci_low, 0.8, 1e-12);
  EXPECT_NEAR(r.ci_high, 0.8, 1e-12);
  EXPECT_STREQ(verdict_word(r), "faster");
  EXPECT_NEAR(r.mean_ms * 12, 0.8 * (r.baseline_mean_ms * 12), 1e-9);
}

TEST(BenchVerdict, SlowerWhenTheIntervalLiesAboveOne) {
  const std::vector<double> b = baseline();
  std::vector<double> a;
  for (size_t i = 0; i < b.size(); ++i) a.push_back(b[i] * (i % 2 ? 1.15 : 1.25));
  const PairedRatio r = paired_ratio(a, b);
  EXPECT_GT(r.ci_low, 1.0);
  EXPECT_LE(r.ci_low, r.ratio);
  EXPECT_GE(r.ci_high, r.ratio);
  EXPECT_STREQ(verdict_word(r), "slower");
}

TEST(BenchVerdict, WithinNoiseWhenThePairsDisagree) {
  const std::vector<double> b = baseline();
  std::vector<double> a;
  for (size_t i = 0; i < b.size(); ++i) a.push_back(b[i] * (i % 2 ? 0.7 : 1.3));
  const PairedRatio r = paired_ratio(a, b);
  EXPECT_LT(r.ci_low, 1.0);
  EXPECT_GT(r.ci_high, 1.0);
  EXPECT_STREQ(verdict_word(r), "within noise");
}

TEST(BenchVerdict, DeterministicForTheSameSamples) {
  const std::vector<double> b = baseline();
  std::vector<double> a;
  for (size_t i = 0; i < b.size(); ++i) a.push_back(b[i] * (i % 3 ? 0.9 : 1.05));
  const PairedRatio r1 = paired_ratio(a, b), r2 = paired_ratio(a, b);
  EXPECT_EQ(r1.ci_low, r2.ci_low);
  EXPECT_EQ(r1.ci_high, r2.ci_high);
}

TEST(BenchVerdict, OnlyPairedIterationsCountAndFewAreTooFew) {
  // A row that stopped after an error has fewer samples: only the common prefix is compared.
  const PairedRatio r = paired_ratio({10, 10, 10}, {20, 20, 20, 1000, 1000});
  EXPECT_EQ(r.paired, 3);
  EXPECT_NEAR(r.ratio, 0.5, 1e-12);
  EXPECT_NEAR(r.baseline_mean_ms, 20, 1e-12);
  EXPECT_EQ(r.ci_low, r.ratio);
  EXPECT_STREQ(verdict_word(r), "too few iterations");
  EXPECT_EQ(paired_ratio({}, {1, 2}).paired, 0);
}

}  // namespace
}  // namespace papcoll_bench
