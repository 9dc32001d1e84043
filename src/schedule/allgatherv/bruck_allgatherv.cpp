// Bruck et al.'s allgather for any p (concatenation, IEEE TPDS 1997), with blocks of varying
// owners as in allgatherv. After round i rank r holds the blocks of origins r, r+1, ...,
// r + 2^(i+1) - 1 (mod p); in round i it sends the first min(2^i, p - 2^i) of the origins it holds
// to r - 2^i, which lacks exactly those, and receives the same from r + 2^i. ceil(log2 p) rounds.
// (Recursive doubling is the same exchange for powers of two; Bruck needs no fold for other p.)
#include <algorithm>

#include "schedule/allgatherv_generators.hpp"

namespace papcoll {
namespace {

// The blocks of origins first, first + 1, ..., first + count - 1 (mod p): one or two runs.
BlockSet origins(int blocks, int p, int first, int count) {
  const int last = first + count;  // first < p, count <= p
  BlockSet s;
  if (last > p) s.append_range(0, origin_first_block(blocks, p, last - p));
  s.append_range(origin_first_block(blocks, p, first),
                 origin_first_block(blocks, p, std::min(last, p)));
  return s;
}

}  // namespace

void bruck_allgatherv_schedule(const GeneratorInput& in, ScheduleSink& out) {
  const int p = in.p;
  for (int r = out.first_rank(); r < out.last_rank(); ++r) {
    int round = 0;
    for (int64_t d = 1; d < p; d *= 2, ++round) {
      const int step = static_cast<int>(d);
      const int count = std::min(step, p - step);
      out.send(r, round, (r - step + p) % p, origins(in.blocks, p, r, count));
      const int from = (r + step) % p;
      out.recv(r, round, from, origins(in.blocks, p, from, count), Combine::copy);
    }
  }
}

}  // namespace papcoll
