#include "schedule/arrival_slots.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "schedule/arrival_key.hpp"

namespace papcoll {

ArrivalSlots arrival_slots(const GeneratorInput& in, double unit) {
  const int p = in.p;
  ArrivalSlots s;
  s.slot.assign(static_cast<size_t>(p), 0);
  s.order.resize(static_cast<size_t>(p));
  std::iota(s.order.begin(), s.order.end(), 0);
  if (static_cast<int>(in.arrivals.size()) != p) return s;
  const double first = *std::min_element(in.arrivals.begin(), in.arrivals.end());
  const double u = std::isfinite(unit) && unit > 1e-12 ? unit : 1e-12;
  for (int r = 0; r < p; ++r) {
    const double x = std::floor((in.arrivals[r] - first) / u + 1e-9);
    s.slot[r] = std::isfinite(x) && x < static_cast<double>(kMaxArrivalSlot)
                    ? std::max<int64_t>(0, static_cast<int64_t>(x))
                    : kMaxArrivalSlot;
  }
  std::sort(s.order.begin(), s.order.end(), [&](int a, int b) {
    return s.slot[a] != s.slot[b] ? s.slot[a] < s.slot[b] : a < b;
  });
  return s;
}

std::string arrival_slots_key(const ArrivalSlots& s, const std::vector<int64_t>& params) {
  std::string key;
  append_key(key, s.slot);
  append_key(key, params);
  return key;
}

}  // namespace papcoll
