// Pipelined chain: virtual rank v forwards block s to v + 1 in round v + s, so block s reaches
// the last rank in round p - 2 + s and the broadcast takes p - 2 + B rounds.
#include <algorithm>

#include "schedule/bcast_generators.hpp"
#include "schedule/builder.hpp"

namespace papcoll {

Schedule chain_bcast_schedule(const GeneratorInput& in) {
  const int p = in.p;
  const int n = std::max(1, in.blocks);
  const int root = bcast_root(in);
  ScheduleBuilder b(Collective::bcast, "chain", p, n, root);
  for (int v = 0; v + 1 < p; ++v)
    for (int s = 0; s < n; ++s)
      b.transfer(v + s, (v + root) % p, (v + 1 + root) % p, {s}, Combine::copy);
  return std::move(b).build();
}

}  // namespace papcoll
