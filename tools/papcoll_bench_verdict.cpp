#include "papcoll_bench_verdict.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace papcoll_bench {

namespace {

// splitmix64: a fixed, portable stream, so the interval is reproducible from the JSON's samples.
struct Stream {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
};

// The q-quantile of sorted values, linear between the closest ranks.
double quantile(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

}  // namespace

PairedRatio paired_ratio(const std::vector<double>& a, const std::vector<double>& b) {
  PairedRatio r;
  const size_t n = std::min(a.size(), b.size());
  r.paired = static_cast<int>(n);
  if (n == 0) return r;
  double sa = 0, sb = 0;
  for (size_t i = 0; i < n; ++i) {
    sa += a[i];
    sb += b[i];
  }
  r.mean_ms = sa / static_cast<double>(n);
  r.baseline_mean_ms = sb / static_cast<double>(n);
  r.ratio = sa / sb;
  r.ci_low = r.ci_high = r.ratio;
  if (r.paired < kVerdictMinIterations) return r;
  // Resampling whole pairs keeps what the interleaving bought: a noisy round raises both figures
  // of its pair, and the ratio of the resampled sums sees that.
  Stream rng{0x5eed0f7e7d1c7ULL};
  std::vector<double> ratios;
  ratios.reserve(kVerdictResamples);
  for (int k = 0; k < kVerdictResamples; ++k) {
    double xa = 0, xb = 0;
    for (size_t i = 0; i < n; ++i) {
      const size_t j = static_cast<size_t>(rng.next() % n);
      xa += a[j];
      xb += b[j];
    }
    ratios.push_back(xa / xb);
  }
  std::sort(ratios.begin(), ratios.end());
  const double tail = (1.0 - kVerdictLevel) / 2.0;
  r.ci_low = quantile(ratios, tail);
  r.ci_high = quantile(ratios, 1.0 - tail);
  return r;
}

const char* verdict_word(const PairedRatio& r) {
  if (r.paired < kVerdictMinIterations) return "too few iterations";
  if (r.ci_high < 1.0) return "faster";
  if (r.ci_low > 1.0) return "slower";
  return "within noise";
}

}  // namespace papcoll_bench
