// Pipelined chain: virtual rank v forwards block s to v + 1 in round v + s, so block s reaches
// the last rank in round p - 2 + s and the broadcast takes p - 2 + B rounds.
#include <algorithm>

#include "schedule/bcast_generators.hpp"

namespace papcoll {

void chain_bcast_schedule(const GeneratorInput& in, ScheduleSink& out) {
  const int p = in.p;
  const int n = std::max(1, in.blocks);
  const int root = bcast_root(in);
  for (int r = out.first_rank(); r < out.last_rank(); ++r) {
    const int v = ((r - root) % p + p) % p;
    for (int s = 0; s < n; ++s) {
      // Round v - 1 + s: block s from v - 1; round v + s: block s to v + 1.
      if (v > 0)
        out.recv(r, v - 1 + s, (v - 1 + root) % p, BlockSet::range(s, s + 1), Combine::copy);
      if (v + 1 < p) out.send(r, v + s, (v + 1 + root) % p, BlockSet::range(s, s + 1));
    }
  }
}

}  // namespace papcoll
