// The binomial tree on virtual ranks 0..p-1 rooted at 0, shared by the binomial broadcast and the
// scatter of scatter-allgather: the children of v are v + 2^i for every 2^i below v's lowest set
// bit (every 2^i < p for the root) with v + 2^i < p, largest subtree first.
#pragma once

#include <utility>
#include <vector>

namespace papcoll::binomial {

inline int depth(int p) {  // ceil(log2 p)
  int q = 0;
  while ((1LL << q) < p) ++q;
  return q;
}

// Children of v as (child, i) with child = v + 2^i, in decreasing i.
inline std::vector<std::pair<int, int>> children(int p, int v) {
  std::vector<std::pair<int, int>> out;
  for (int i = depth(p) - 1; i >= 0; --i) {
    const long long bit = 1LL << i;
    if (v != 0 && bit >= (v & -v)) continue;
    if (v + bit < p) out.push_back({static_cast<int>(v + bit), i});
  }
  return out;
}

}  // namespace papcoll::binomial
