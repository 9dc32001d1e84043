// Byte sizes of the v-collectives' blocks. In scatterv and gatherv schedules block i is rank i's
// portion: counts[i] * elem_bytes bytes, or an equal share of `bytes` (block_range) when no counts
// are given. The cost model and the trees' own predictions add a message's blocks with the same
// function, in ascending block order, so both give bit-identical times.
#pragma once

#include <cstdint>
#include <vector>

#include "schedule/blocks.hpp"
#include "schedule/registry.hpp"

namespace papcoll {

inline std::vector<double> portion_bytes(const GeneratorInput& in) {
  std::vector<double> bytes(static_cast<size_t>(in.p), 0.0);
  const bool counted = static_cast<int>(in.counts.size()) == in.p;
  for (int i = 0; i < in.p; ++i)
    bytes[i] =
        counted ? static_cast<double>(in.counts[i]) * in.elem_bytes
                : static_cast<double>(block_range(static_cast<int64_t>(in.bytes), in.p, i).count);
  return bytes;
}

// Bytes of a message carrying `blocks` (ascending), block b being block_bytes[b] bytes.
inline double message_bytes(const std::vector<double>& block_bytes,
                            const std::vector<int>& blocks) {
  double m = 0;
  for (int b : blocks) m += block_bytes[static_cast<size_t>(b)];
  return m;
}
inline double message_bytes(const std::vector<double>& block_bytes, const BlockSet& blocks) {
  double m = 0;
  blocks.for_each([&](int b) { m += block_bytes[static_cast<size_t>(b)]; });
  return m;
}

}  // namespace papcoll
