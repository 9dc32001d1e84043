// The block ranges of recursive halving (Rabenseifner 2004), shared by the Rabenseifner all-reduce
// and reduce: virtual rank v of p' = 2^levels starts with [0, B); halving step l (mask p' >> (l+1))
// splits its range at the middle, v keeping the lower half when v & mask is 0. O(levels) per rank.
#pragma once

#include <utility>
#include <vector>

namespace papcoll {

// ranges[l] = v's range before halving step l, l = 0..levels (ranges[levels]: after the last).
inline std::vector<std::pair<int, int>> halving_ranges(int v, int pof2, int levels, int blocks) {
  std::vector<std::pair<int, int>> ranges{{0, blocks}};
  for (int l = 0; l < levels; ++l) {
    const int mask = pof2 >> (l + 1);
    const auto [lo, hi] = ranges.back();
    const int mid = lo + (hi - lo) / 2;
    ranges.push_back((v & mask) == 0 ? std::make_pair(lo, mid) : std::make_pair(mid, hi));
  }
  return ranges;
}

}  // namespace papcoll
