// Träff's all-to-all broadcast (arXiv 2312.11236, Algorithm 2): the broadcast of Algorithm 1 run
// for every origin o at once, origin o being the root of its own blocks, all of them combined into
// one message per round. Processor r is virtual processor (r - o) mod p of origin o's broadcast,
// so in round t (index k) r sends to t_r = r + skip[k], for every origin o except the to-processor
// itself (it is that origin's root), block sendblock_{(r-o) mod p}[k] + offset of o, and receives
// recvblock_{(r-o) mod p}[k] + offset of every origin o != r. The generator checks that both
// sides name the same blocks.
//
// n is the largest number of blocks an origin owns (ceil(B/p)); an origin with fewer blocks maps
// block j to min(j, its count - 1), a monotone capping like Algorithm 1's, which keeps every send
// backed by an earlier receive.
#include <algorithm>
#include <stdexcept>
#include <vector>

#include "schedule/allgatherv_generators.hpp"
#include "schedule/builder.hpp"
#include "schedule/circulant_tables.hpp"

namespace papcoll {

Schedule circulant_allgatherv_schedule(const GeneratorInput& in) {
  const int p = in.p;
  const int blocks = std::max(1, in.blocks);
  ScheduleBuilder b(Collective::allgatherv, "circulant", p, blocks);
  if (p == 1) return std::move(b).build();
  const circulant::Tables tab = circulant::make_tables(p);
  const int q = tab.skips.q;
  std::vector<int> first(static_cast<size_t>(p) + 1);
  for (int o = 0; o <= p; ++o) first[o] = origin_first_block(blocks, p, o);
  const int n = (blocks + p - 1) / p;
  // Global id of block j of origin o, or -1 when o owns no blocks.
  auto global = [&](int o, int j) {
    const int count = first[o + 1] - first[o];
    return count == 0 ? -1 : first[o] + std::min(j, count - 1);
  };
  std::vector<int> sent, expected;
  for (int t = 0; t < circulant::real_rounds(q, n); ++t) {
    const circulant::Round rd = circulant::round_of(q, n, t);
    const int skip = tab.skips.skip[rd.k];
    for (int r = 0; r < p; ++r) {
      const int to = (r + skip) % p;
      sent.clear();
      expected.clear();
      for (int o = 0; o < p; ++o) {
        if (o == to) continue;  // the to-processor is the root of o's blocks
        const int v = ((r - o) % p + p) % p;
        const int j = tab.sendblock(v, rd.k) + rd.offset;
        const int w = ((to - o) % p + p) % p;
        if (j != tab.recvblock(w, rd.k) + rd.offset)
          throw std::logic_error("circulant allgatherv: send and receive schedules disagree");
        if (j >= 0 && global(o, j) >= 0) sent.push_back(global(o, j));
      }
      b.transfer(t, r, to, sent, Combine::copy);
    }
  }
  return std::move(b).build();
}

}  // namespace papcoll
