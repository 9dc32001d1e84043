#include "papcoll_bench_counts.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

namespace papcoll_bench {
namespace {

std::uint64_t splitmix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

std::vector<double> counts_weights(CountsDist dist, double ratio, int p, std::uint64_t seed,
                                   const std::vector<double>& measured_speeds) {
  std::vector<double> w(static_cast<size_t>(p), 1.0);
  for (int i = 0; i < p; ++i) switch (dist) {
      case CountsDist::equal: break;
      case CountsDist::cpu_speed: {
        const std::uint64_t bits =
            splitmix(splitmix(seed ^ 0x637075ULL) + static_cast<std::uint64_t>(i));
        w[i] = 1.0 + 3.0 * static_cast<double>(bits >> 11) * 0x1.0p-53;
        break;
      }
      case CountsDist::cpu_speed_measured: w[i] = measured_speeds[static_cast<size_t>(i)]; break;
      case CountsDist::ratio:
        w[i] = p > 1 ? std::pow(ratio, static_cast<double>(i) / (p - 1)) : 1.0;
        break;
    }
  return w;
}

std::vector<int> proportional_counts(long long total, const std::vector<double>& weights) {
  const size_t p = weights.size();
  const double sum = std::accumulate(weights.begin(), weights.end(), 0.0);
  std::vector<int> c(p, 0);
  std::vector<std::pair<double, size_t>> remainders;
  long long given = 0;
  for (size_t i = 0; i < p; ++i) {
    const double exact = sum > 0 ? static_cast<double>(total) * weights[i] / sum : 0.0;
    c[i] = static_cast<int>(std::floor(exact));
    given += c[i];
    remainders.push_back({exact - c[i], i});
  }
  std::stable_sort(remainders.begin(), remainders.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t k = 0; given < total && p > 0; k = (k + 1) % p, ++given) ++c[remainders[k].second];
  return c;
}

double measure_cpu_speed() {
  double best = INFINITY;
  volatile double sink = 0;
  for (int rep = 0; rep < 5; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    double x = 1.0;
    for (int i = 0; i < 2000000; ++i) x = x * 1.0000001 + 1e-9;
    sink = sink + x;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::min(best, s);
  }
  return best > 0 ? 1.0 / best : 1.0;
}

}  // namespace papcoll_bench
