// Flat (linear) reduce: every other rank sends its whole vector to the root, which reduces them one
// per round in order of relative rank (a rank may not receive the same block twice in one step),
// as MPICH's and Open MPI's linear reduce.
#include "schedule/builder.hpp"
#include "schedule/reduce_generators.hpp"

namespace papcoll {

Schedule linear_reduce_schedule(const GeneratorInput& in) {
  const int p = in.p, root = reduce_root(in);
  ScheduleBuilder b(Collective::reduce, "linear", p, in.blocks, root);
  const std::vector<int> all = block_span(0, in.blocks);
  for (int v = 1; v < p; ++v) b.transfer(v - 1, (root + v) % p, root, all, Combine::reduce);
  return std::move(b).build();
}

}  // namespace papcoll
