#include "schedule/arrival/arrival_slots.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include "schedule/arrival_key.hpp"

namespace papcoll {

ArrivalSlots arrival_slots(const GeneratorInput& in, double unit) {
  // The last result of this thread: a call computes the slots for its key, its plan and auto's
  // estimates, and a repeated pattern (an oracle's, a history's that has settled) at every call.
  struct Last {
    int p = 0;
    double unit = 0;
    std::vector<double> arrivals;
    ArrivalSlots slots;
  };
  thread_local Last last;
  if (last.p == in.p && last.unit == unit && last.arrivals == in.arrivals) return last.slots;
  const int p = in.p;
  ArrivalSlots s;
  s.slot.assign(static_cast<size_t>(p), 0);
  s.order.resize(static_cast<size_t>(p));
  std::iota(s.order.begin(), s.order.end(), 0);
  if (static_cast<int>(in.arrivals.size()) != p) {
    last = {p, unit, in.arrivals, s};
    return s;
  }
  const double first = *std::min_element(in.arrivals.begin(), in.arrivals.end());
  const double u = std::isfinite(unit) && unit > 1e-12 ? unit : 1e-12;
  for (int r = 0; r < p; ++r) {
    const double x = std::floor((in.arrivals[r] - first) / u + 1e-9);
    s.slot[r] = std::isfinite(x) && x < static_cast<double>(kMaxArrivalSlot)
                    ? std::max<int64_t>(0, static_cast<int64_t>(x))
                    : kMaxArrivalSlot;
  }
  std::vector<std::pair<int64_t, int>> keyed(static_cast<size_t>(p));
  for (int r = 0; r < p; ++r) keyed[r] = {s.slot[r], r};
  std::sort(keyed.begin(), keyed.end());
  for (int i = 0; i < p; ++i) s.order[i] = keyed[i].second;
  last = {p, unit, in.arrivals, s};
  return s;
}

std::string arrival_slots_key(const ArrivalSlots& s, const std::vector<int64_t>& params) {
  std::string key;
  append_key(key, s.slot);
  append_key(key, params);
  return key;
}

}  // namespace papcoll
