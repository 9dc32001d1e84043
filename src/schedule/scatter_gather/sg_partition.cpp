#include "schedule/scatter_gather/sg_partition.hpp"

#include <algorithm>
#include <cmath>

namespace papcoll {
namespace {

// The current subset (weight w, n processes) outweighs the earlier ones together (W, N).
bool exceeds(double w, long long n, double total_w, long long total_n) {
  const double tolerance = 1e-12 * std::max(std::fabs(w), std::fabs(total_w));
  if (std::fabs(w - total_w) <= tolerance) return n > total_n;
  return w > total_w;
}

}  // namespace

std::vector<std::vector<int>> traff_partition(const std::vector<int>& order,
                                              const std::vector<double>& weight) {
  std::vector<std::vector<int>> subsets;
  std::vector<int> current;
  double total_w = 0, w = 0;
  long long total_n = 0;
  for (size_t k = 0; k < order.size(); ++k) {
    current.push_back(order[k]);
    w += weight[k];
    if (exceeds(w, static_cast<long long>(current.size()), total_w, total_n)) {
      total_w += w;
      total_n += static_cast<long long>(current.size());
      subsets.push_back(std::move(current));
      current.clear();
      w = 0;
    }
  }
  if (!current.empty()) subsets.push_back(std::move(current));
  return subsets;
}

}  // namespace papcoll
