// Ring allgather(v): in round h rank r sends the blocks of origin r - h to r + 1 (its own in round
// 0, afterwards what it received in the round before) and receives those of origin r - 1 - h,
// p - 1 rounds.
#include "schedule/allgatherv_generators.hpp"

namespace papcoll {

void ring_allgatherv_schedule(const GeneratorInput& in, ScheduleSink& out) {
  const int p = in.p;
  auto origin = [&](int o) { return origin_blocks(in.blocks, p, ((o % p) + p) % p); };
  for (int r = out.first_rank(); r < out.last_rank(); ++r)
    for (int h = 0; h + 1 < p; ++h) {
      out.send(r, h, (r + 1) % p, origin(r - h));
      out.recv(r, h, (r + p - 1) % p, origin(r - 1 - h), Combine::copy);
    }
}

}  // namespace papcoll
