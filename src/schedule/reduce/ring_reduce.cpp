// Ring reduce ("parallel ring" / bucket algorithm, Chan et al. 2007; the RING baseline of
// "Improving Clairvoyant", Sect. 6): a ring reduce-scatter over relative ranks v = (r - root) mod p
// -- in round h, v sends chunk (v - h) mod p to v + 1 -- after which v holds chunk (v + 1) mod p
// complete; then every rank sends its chunk straight to the root in one more round (a flat
// gather: the chunks are distinct, so the root takes them in one step). B blocks are dealt to p
// chunks (schedule_sink.hpp); with B < p empty chunks send nothing.
#include "schedule/reduce_generators.hpp"

namespace papcoll {

void ring_reduce_schedule(const GeneratorInput& in, ScheduleSink& out) {
  const int p = in.p, root = reduce_root(in);
  auto real = [&](int v) { return ((v % p + p) % p + root) % p; };
  auto chunk = [&](int j) { return chunk_blocks(in.blocks, p, ((j % p) + p) % p); };
  for (int r = out.first_rank(); r < out.last_rank(); ++r) {
    const int v = ((r - root) % p + p) % p;
    out.reserve(r, (v == 0 ? 3 : 2) * static_cast<size_t>(p));
    for (int h = 0; h + 1 < p; ++h) {
      out.send(r, h, real(v + 1), chunk(v - h));
      out.recv(r, h, real(v - 1), chunk(v - 1 - h), Combine::reduce);
    }
    if (v != 0) {
      out.send(r, p - 1, root, chunk(v + 1));
    } else {
      for (int u = 1; u < p; ++u) out.recv(r, p - 1, real(u), chunk(u + 1), Combine::copy);
    }
  }
}

}  // namespace papcoll
