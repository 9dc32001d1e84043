#include "schedule/circulant/circulant_skips.hpp"

#include <cstdint>
#include <stdexcept>

namespace papcoll::circulant {

Skips make_skips(int p) {
  if (p < 1 || p > kMaxP) throw std::invalid_argument("circulant schedules need 1 <= p <= 2^29");
  Skips s;
  s.p = p;
  while ((int64_t{1} << s.q) < p) ++s.q;
  s.skip[s.q] = p;
  // Halving with rounding up (Algorithm 3); q halvings reach 1 exactly (Observation 1:
  // skip[k+1] <= 2 skip[k], so the skips below k sum to at least skip[k] - 1).
  for (int k = s.q - 1; k >= 0; --k) s.skip[k] = s.skip[k + 1] - s.skip[k + 1] / 2;
  s.skip[s.q + 1] = 2 * p + 1;
  return s;
}

}  // namespace papcoll::circulant
