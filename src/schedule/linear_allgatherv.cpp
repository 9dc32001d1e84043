// Linear (direct) allgather(v): every origin sends its own blocks straight to every other rank,
// in round k - 1 to rank r + k, p - 1 rounds. Nothing is forwarded, so over point-to-point
// messages it moves the same bytes as the ring; its use is the shared-memory transport
// (executor/shared_transport.hpp), where a block is published once and read by every rank
// directly, which makes it the cheapest schedule on one node.
#include "schedule/allgatherv_generators.hpp"
#include "schedule/builder.hpp"

namespace papcoll {

Schedule linear_allgatherv_schedule(const GeneratorInput& in) {
  const int p = in.p;
  ScheduleBuilder b(Collective::allgatherv, "linear", p, in.blocks);
  for (int k = 1; k < p; ++k)
    for (int r = 0; r < p; ++r)
      b.transfer(k - 1, r, (r + k) % p, origin_blocks(in.blocks, p, r), Combine::copy);
  return std::move(b).build();
}

}  // namespace papcoll
