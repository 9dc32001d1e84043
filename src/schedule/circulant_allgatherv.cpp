// Träff's all-to-all broadcast (arXiv 2312.11236, Algorithm 2): the broadcast of Algorithm 1 run
// for every origin o at once, origin o being the root of its own blocks, all of them combined into
// one message per round. Processor r is virtual processor (r - o) mod p of origin o's broadcast,
// so in round t (index k) r sends to t_r = r + skip[k], for every origin o except the to-processor
// itself (it is that origin's root), the block the to-processor receives, recvblock_{(t_r-o) mod p}
// [k] + offset of o (correctness condition 2), and receives recvblock_{(r-o) mod p}[k] + offset of
// every origin o != r. As in the paper, each processor computes the receive schedule of every
// virtual processor, O(p log p); a round's message itself names p blocks.
//
// n is the largest number of blocks an origin owns (ceil(B/p)); an origin with fewer blocks maps
// block j to min(j, its count - 1), a monotone capping like Algorithm 1's, which keeps every send
// backed by an earlier receive.
#include <algorithm>
#include <vector>

#include "schedule/allgatherv_generators.hpp"
#include "schedule/circulant_recv.hpp"
#include "schedule/circulant_tables.hpp"

namespace papcoll {

void circulant_allgatherv_schedule(const GeneratorInput& in, ScheduleSink& out) {
  const int p = in.p;
  const int blocks = std::max(1, in.blocks);
  if (p == 1) return;
  const circulant::Skips sk = circulant::make_skips(p);
  const int q = sk.q;
  std::vector<int> recv(static_cast<size_t>(p) * q);
  for (int v = 0; v < p; ++v) circulant::recv_schedule(sk, v, &recv[static_cast<size_t>(v) * q]);
  auto recvblock = [&](int v, int k) { return recv[static_cast<size_t>(v) * q + k]; };
  std::vector<int> first(static_cast<size_t>(p) + 1);
  for (int o = 0; o <= p; ++o) first[o] = origin_first_block(blocks, p, o);
  const int n = (blocks + p - 1) / p;
  // Global id of block j of origin o, or -1 when o owns no blocks.
  auto global = [&](int o, int j) {
    const int count = first[o + 1] - first[o];
    return count == 0 ? -1 : first[o] + std::min(j, count - 1);
  };
  for (int r = out.first_rank(); r < out.last_rank(); ++r)
    for (int t = 0; t < circulant::real_rounds(q, n); ++t) {
      const circulant::Round rd = circulant::round_of(q, n, t);
      const int skip = sk.skip[rd.k];
      const int to = (r + skip) % p, from = (r - skip + p) % p;
      BlockSet sent, got;
      for (int o = 0; o < p; ++o) {
        if (o != to) {
          const int j = recvblock(((to - o) % p + p) % p, rd.k) + rd.offset;
          if (j >= 0 && global(o, j) >= 0) sent.append(global(o, j));
        }
        if (o != r) {
          const int j = recvblock(((r - o) % p + p) % p, rd.k) + rd.offset;
          if (j >= 0 && global(o, j) >= 0) got.append(global(o, j));
        }
      }
      out.send(r, t, to, std::move(sent));
      out.recv(r, t, from, std::move(got), Combine::copy);
    }
}

}  // namespace papcoll
