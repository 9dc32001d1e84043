// Ring allgather(v): in round h rank r sends the blocks of origin r - h to r + 1 (its own in round
// 0, afterwards what it received in the round before), p - 1 rounds.
#include "schedule/allgatherv_generators.hpp"
#include "schedule/builder.hpp"

namespace papcoll {

Schedule ring_allgatherv_schedule(const GeneratorInput& in) {
  const int p = in.p;
  ScheduleBuilder b(Collective::allgatherv, "ring", p, in.blocks);
  for (int h = 0; h + 1 < p; ++h)
    for (int r = 0; r < p; ++r)
      b.transfer(h, r, (r + 1) % p, origin_blocks(in.blocks, p, ((r - h) % p + p) % p),
                 Combine::copy);
  return std::move(b).build();
}

}  // namespace papcoll
