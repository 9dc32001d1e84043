// Ring all-reduce (Thakur, Rabenseifner, Gropp 2005): p-1 rounds of reduce-scatter, then p-1 rounds
// of allgather, rank r always sending to r+1. The B blocks are dealt to p chunks; with B < p some
// chunks are empty and their messages vanish.
#include "schedule/allreduce_generators.hpp"
#include "schedule/builder.hpp"

namespace papcoll {

Schedule ring_allreduce_schedule(const GeneratorInput& in) {
  const int p = in.p;
  ScheduleBuilder b(Collective::allreduce, "ring", p, in.blocks);
  auto chunk = [&](int j) { return chunk_blocks(in.blocks, p, ((j % p) + p) % p); };
  for (int h = 0; h + 1 < p; ++h)
    for (int r = 0; r < p; ++r) b.transfer(h, r, (r + 1) % p, chunk(r - h), Combine::reduce);
  // After reduce-scatter rank r holds chunk r+1 complete.
  for (int h = 0; h + 1 < p; ++h)
    for (int r = 0; r < p; ++r)
      b.transfer(p - 1 + h, r, (r + 1) % p, chunk(r + 1 - h), Combine::copy);
  return std::move(b).build();
}

}  // namespace papcoll
