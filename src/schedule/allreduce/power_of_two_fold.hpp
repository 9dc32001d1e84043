// Non-power-of-two handling shared by recursive doubling and Rabenseifner (Thakur et al. 2005,
// Sec. 4.4 / Rabenseifner 2004): with p' the largest power of two <= p and r = p - p', each even
// rank 2i < 2r hands its whole vector to 2i+1 first and gets the result back last; the remaining p'
// ranks run the power-of-two algorithm under "virtual" ranks 0..p'-1. O(1) per query, no table.
#pragma once

namespace papcoll {

struct PowerOfTwoFold {
  int p = 1;
  int pof2 = 1;
  int extra = 0;  // r = p - pof2

  explicit PowerOfTwoFold(int p_) : p(p_) {
    // pof2 <= p / 2 before doubling keeps pof2 * 2 from overflowing for p near INT_MAX.
    while (pof2 <= p / 2) pof2 *= 2;
    extra = p - pof2;
  }
  int log2_pof2() const {
    int l = 0;
    while ((pof2 >> l) > 1) ++l;
    return l;
  }
  // Virtual rank -> real rank.
  int real_rank(int v) const { return v < extra ? 2 * v + 1 : v + extra; }
  // Rank 2i < 2r: only folds its vector into 2i+1.
  bool folded_out(int r) const { return r < 2 * extra && r % 2 == 0; }
  // Rank 2i+1 < 2r: takes the vector of 2i first.
  bool takes_fold(int r) const { return r < 2 * extra && r % 2 == 1; }
  // Real rank -> virtual rank; -1 for a rank folded out.
  int virtual_rank(int r) const {
    if (folded_out(r)) return -1;
    return r < 2 * extra ? r / 2 : r - extra;
  }
};

}  // namespace papcoll
