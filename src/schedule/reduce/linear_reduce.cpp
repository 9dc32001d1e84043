// Flat (linear) reduce: every other rank sends its whole vector to the root, which reduces them one
// per round in order of relative rank (a rank may not receive the same block twice in one step),
// as MPICH's and Open MPI's linear reduce.
#include "schedule/reduce_generators.hpp"

namespace papcoll {

void linear_reduce_schedule(const GeneratorInput& in, ScheduleSink& out) {
  const int p = in.p, root = reduce_root(in);
  const BlockSet all = BlockSet::range(0, in.blocks);
  for (int r = out.first_rank(); r < out.last_rank(); ++r) {
    const int v = ((r - root) % p + p) % p;
    if (v != 0) {
      out.send(r, v - 1, root, all);
      continue;
    }
    for (int u = 1; u < p; ++u) out.recv(r, u - 1, (root + u) % p, all, Combine::reduce);
  }
}

}  // namespace papcoll
