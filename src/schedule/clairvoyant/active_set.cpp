#include "schedule/clairvoyant/active_set.hpp"

#include <algorithm>
#include <numeric>

namespace papcoll::clairvoyant {

ActiveSet::ActiveSet(const Clock& clock, int p)
    : clk_(clock),
      awaiting_(static_cast<size_t>(p)),
      base_(static_cast<size_t>(p), 0),
      in_g_(static_cast<size_t>(p), 0) {
  std::iota(awaiting_.begin(), awaiting_.end(), 0);
  std::sort(awaiting_.begin(), awaiting_.end(),
            [&](int a, int b) { return clk_.before(clk_.k0[a], a, clk_.k0[b], b); });
}

}  // namespace papcoll::clairvoyant
