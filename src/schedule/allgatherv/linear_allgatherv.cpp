// Linear (direct) allgather(v): every origin sends its own blocks straight to every other rank,
// in round k - 1 to rank r + k, p - 1 rounds. Nothing is forwarded, so over point-to-point
// messages it moves the same bytes as the ring; its use is the shared-memory transport
// (executor/shared_transport.hpp), where a block is published once and read by every rank
// directly, which makes it the cheapest schedule on one node.
#include "schedule/allgatherv_generators.hpp"

namespace papcoll {

void linear_allgatherv_schedule(const GeneratorInput& in, ScheduleSink& out) {
  const int p = in.p;
  for (int r = out.first_rank(); r < out.last_rank(); ++r)
    for (int k = 1; k < p; ++k) {
      out.send(r, k - 1, (r + k) % p, origin_blocks(in.blocks, p, r));
      const int from = (r - k + p) % p;
      out.recv(r, k - 1, from, origin_blocks(in.blocks, p, from), Combine::copy);
    }
}

}  // namespace papcoll
