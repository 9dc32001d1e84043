// Bruck et al.'s allgather for any p (concatenation, IEEE TPDS 1997), with blocks of varying
// owners as in allgatherv. After round i rank r holds the blocks of origins r, r+1, ...,
// r + 2^(i+1) - 1 (mod p); in round i it sends the first min(2^i, p - 2^i) of the origins it holds
// to r - 2^i, which lacks exactly those. ceil(log2 p) rounds. (Recursive doubling is the same
// exchange for powers of two; Bruck needs no fold for other p.)
#include <algorithm>
#include <vector>

#include "schedule/allgatherv_generators.hpp"
#include "schedule/builder.hpp"

namespace papcoll {

Schedule bruck_allgatherv_schedule(const GeneratorInput& in) {
  const int p = in.p;
  ScheduleBuilder b(Collective::allgatherv, "bruck", p, in.blocks);
  int round = 0;
  for (int d = 1; d < p; d *= 2, ++round) {
    const int count = std::min(d, p - d);
    for (int r = 0; r < p; ++r) {
      std::vector<int> blocks;
      for (int j = 0; j < count; ++j) {
        const std::vector<int> own = origin_blocks(in.blocks, p, (r + j) % p);
        blocks.insert(blocks.end(), own.begin(), own.end());
      }
      b.transfer(round, r, ((r - d) % p + p) % p, blocks, Combine::copy);
    }
  }
  return std::move(b).build();
}

}  // namespace papcoll
