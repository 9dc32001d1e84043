// papcoll-bench's verdict: one papcoll row against the MPI library's collective (the `native`
// row) of the same case, as one line a user can paste (docs/papcoll-bench.md, "Verdict").
// Plain C++, no MPI: the numbers come from the rows' per-iteration samples.
#pragma once

#include <string>
#include <vector>

namespace papcoll_bench {

// The statistics of a verdict, over the iterations both rows completed (iteration i of every row
// ran in the same round of the interleaved loop, so the pairs saw the same machine state).
struct PairedRatio {
  int paired = 0;               // iterations in both rows
  double mean_ms = 0;           // the papcoll row's mean elapsed over them
  double baseline_mean_ms = 0;  // the native row's
  double ratio = 0;             // mean_ms / baseline_mean_ms (below 1: papcoll faster)
  // The bootstrap percentile interval of the ratio of means (kVerdictLevel), resampling the
  // paired iterations; equal to ratio when paired < kVerdictMinIterations.
  double ci_low = 0, ci_high = 0;
};

inline constexpr double kVerdictLevel = 0.95;
inline constexpr int kVerdictResamples = 2000;
inline constexpr int kVerdictMinIterations = 5;

// a[i] and b[i] are the two rows' figures of iteration i; pairs beyond the shorter are dropped.
// Deterministic: the bootstrap's stream is fixed, so the same samples give the same interval.
PairedRatio paired_ratio(const std::vector<double>& a, const std::vector<double>& b);

// "faster" (the interval lies below 1), "slower" (above 1), "within noise" (it contains 1),
// "too few iterations" (fewer than kVerdictMinIterations pairs).
const char* verdict_word(const PairedRatio& r);

}  // namespace papcoll_bench
