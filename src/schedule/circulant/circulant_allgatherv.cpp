// Träff's all-to-all broadcast (arXiv 2312.11236, Algorithm 2): the broadcast of Algorithm 1 run
// for every origin o at once, origin o being the root of its own blocks, all of them combined into
// one message per round. Processor r is virtual processor (r - o) mod p of origin o's broadcast,
// so in round t (index k) r sends to t_r = r + skip[k], for every origin o except the to-processor
// itself (it is that origin's root), the block the to-processor receives, recvblock_{(t_r-o) mod p}
// [k] + offset of o (correctness condition 2), and receives recvblock_{(r-o) mod p}[k] + offset of
// every origin o != r. A rank's part is its n - 1 + q rounds, O(n + log p): a message is named by
// its round and receiver (circulant_message.hpp) and its p blocks are listed when it is packed,
// from the receive schedule of every virtual processor as in the paper.
//
// n is the largest number of blocks an origin owns (ceil(B/p)); an origin with fewer blocks maps
// block j to min(j, its count - 1), a monotone capping like Algorithm 1's, which keeps every send
// backed by an earlier receive.
#include <algorithm>

#include "schedule/allgatherv_generators.hpp"
#include "schedule/circulant/circulant_message.hpp"
#include "schedule/circulant/circulant_tables.hpp"

namespace papcoll {

void circulant_allgatherv_schedule(const GeneratorInput& in, ScheduleSink& out) {
  const int p = in.p;
  const int blocks = std::max(1, in.blocks);
  if (p == 1) return;
  const circulant::Skips sk = circulant::make_skips(p);
  const int q = sk.q;
  const int n = (blocks + p - 1) / p;
  for (int r = out.first_rank(); r < out.last_rank(); ++r) {
    out.reserve(r, 2 * static_cast<size_t>(circulant::real_rounds(q, n)));
    for (int t = 0; t < circulant::real_rounds(q, n); ++t) {
      const circulant::Round rd = circulant::round_of(q, n, t);
      const int skip = sk.skip[rd.k];
      const int to = (r + skip) % p, from = (r - skip + p) % p;
      out.send(r, t, to, circulant::allgather_message(sk, blocks, rd.k, rd.offset, to));
      out.recv(r, t, from, circulant::allgather_message(sk, blocks, rd.k, rd.offset, r),
               Combine::copy);
    }
  }
}

}  // namespace papcoll
