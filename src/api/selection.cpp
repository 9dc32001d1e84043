#include "api/selection.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

namespace papcoll {

namespace {
constexpr const char* kAuto = "auto";
constexpr const char* kNative = "native";
}  // namespace

bool resolve_algorithm(Collective c, const char* name, Selection* out) {
  if (name == nullptr || std::strcmp(name, kAuto) == 0) {
    *out = Selection{true, nullptr};
    return true;
  }
  if (std::strcmp(name, kNative) == 0) {
    *out = Selection{false, nullptr};
    return true;
  }
  const AlgorithmInfo* a = find_algorithm(c, name);
  if (a == nullptr) return false;
  *out = Selection{false, a};
  return true;
}

std::string algorithm_names(Collective c, const char* sep) {
  std::string names;
  for (const AlgorithmInfo* a : algorithms_for(c)) names += std::string(a->name) + sep;
  if (names.empty()) return names;  // nothing papcoll could run or choose between
  return names + kNative + sep + kAuto;
}

const AlgorithmInfo* choose_allreduce(int p, int64_t count, bool commutative,
                                      const std::vector<double>& arrivals,
                                      const CostParams& cost, double bytes) {
  if (!commutative || count < p) return nullptr;
  const AlgorithmInfo* ring = find_algorithm(Collective::allreduce, "ring");
  const AlgorithmInfo* prr = find_algorithm(Collective::allreduce, "prr");
  if (arrivals.empty() || prr == nullptr) return ring;
  return imbalance_factor(arrivals, cost, bytes) < 1.0 ? ring : prr;
}

double imbalance_factor(const std::vector<double>& arrivals, const CostParams& cost,
                        double bytes) {
  if (arrivals.empty()) return 0.0;
  const auto [lo, hi] = std::minmax_element(arrivals.begin(), arrivals.end());
  const double one_message = cost.alpha + cost.beta * bytes;
  if (!(one_message > 0)) return *hi > *lo ? std::numeric_limits<double>::infinity() : 0.0;
  return (*hi - *lo) / one_message;
}

}  // namespace papcoll
