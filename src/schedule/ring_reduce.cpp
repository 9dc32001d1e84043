// Ring reduce ("parallel ring" / bucket algorithm, Chan et al. 2007; the RING baseline of
// "Improving Clairvoyant", Sect. 6): a ring reduce-scatter over relative ranks v = (r - root) mod p
// -- in round h, v sends chunk (v - h) mod p to v + 1 -- after which v holds chunk (v + 1) mod p
// complete; then every rank sends its chunk straight to the root in one more round (a flat
// gather: the chunks are distinct, so the root takes them in one step). B blocks are dealt to p
// chunks (builder.hpp); with B < p empty chunks send nothing.
#include "schedule/builder.hpp"
#include "schedule/reduce_generators.hpp"

namespace papcoll {

Schedule ring_reduce_schedule(const GeneratorInput& in) {
  const int p = in.p, root = reduce_root(in);
  ScheduleBuilder b(Collective::reduce, "ring", p, in.blocks, root);
  auto real = [&](int v) { return (v % p + root) % p; };
  auto chunk = [&](int j) { return chunk_blocks(in.blocks, p, ((j % p) + p) % p); };
  for (int h = 0; h + 1 < p; ++h)
    for (int v = 0; v < p; ++v) b.transfer(h, real(v), real(v + 1), chunk(v - h), Combine::reduce);
  for (int v = 1; v < p; ++v) b.transfer(p - 1, real(v), root, chunk(v + 1), Combine::copy);
  return std::move(b).build();
}

}  // namespace papcoll
