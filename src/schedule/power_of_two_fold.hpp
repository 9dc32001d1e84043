// Non-power-of-two handling shared by recursive doubling and Rabenseifner (Thakur et al. 2005,
// Sec. 4.4 / Rabenseifner 2004): with p' the largest power of two <= p and r = p - p', each even
// rank 2i < 2r hands its whole vector to 2i+1 first and gets the result back last; the remaining p'
// ranks run the power-of-two algorithm under "virtual" ranks 0..p'-1.
#pragma once

#include <vector>

namespace papcoll {

struct PowerOfTwoFold {
  int p = 1;
  int pof2 = 1;
  int extra = 0;               // r = p - pof2
  std::vector<int> real_rank;  // virtual rank -> real rank

  explicit PowerOfTwoFold(int p_) : p(p_) {
    while (pof2 <= p / 2) pof2 *= 2;  // not pof2 * 2 <= p: that overflows for p > 2^30
    extra = p - pof2;
    for (int v = 0; v < pof2; ++v) real_rank.push_back(v < extra ? 2 * v + 1 : v + extra);
  }
  int log2_pof2() const {
    int l = 0;
    while ((pof2 >> l) > 1) ++l;
    return l;
  }
};

}  // namespace papcoll
