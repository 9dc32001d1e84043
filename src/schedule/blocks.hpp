// Block partition of a buffer of `count` elements into B blocks: the first count % B blocks get one
// extra element, so block sizes differ by at most one and every rank computes the same split from
// the count alone (docs/schedule-format.md).
#pragma once

#include <cstdint>

namespace papcoll {

struct BlockRange {
  int64_t offset;  // in elements
  int64_t count;   // in elements
};

inline BlockRange block_range(int64_t count, int blocks, int b) {
  const int64_t base = count / blocks;
  const int64_t extra = count % blocks;
  const int64_t off = b * base + (b < extra ? b : extra);
  return {off, base + (b < extra ? 1 : 0)};
}

}  // namespace papcoll
