// Träff's n-block broadcast on the circulant graph (arXiv 2312.11236, Algorithm 1). In round t
// (phase j, k = (x + t) mod q) virtual processor v sends sendblock_v[k] + offset to
// v + skip[k] and receives recvblock_v[k] + offset from v - skip[k]; negative blocks are not
// communicated, larger ones are capped to n - 1, nothing is sent to the root. Each processor
// computes only its own receive and send schedules, O(log p) (Sects. 2.3, 2.4); that the blocks of
// both ends agree (correctness conditions 1 and 2) is what the verifier checks of every pair.
#include <algorithm>
#include <limits>

#include "schedule/bcast_generators.hpp"
#include "schedule/circulant/circulant_recv.hpp"
#include "schedule/circulant/circulant_send.hpp"
#include "schedule/circulant/circulant_tables.hpp"

namespace papcoll {

void circulant_bcast_schedule(const GeneratorInput& in, ScheduleSink& out) {
  const int p = in.p;
  const int n = std::max(1, in.blocks);
  const int root = bcast_root(in);
  if (p == 1) return;
  const circulant::Skips sk = circulant::make_skips(p);
  const int q = sk.q;
  auto real = [&](int v) { return (v + root) % p; };
  // Every round paced (docs/algorithms.md, "Paced sends"): the root receives nothing, so unpaced
  // it posted all its n - 1 + q sends at once and they shared its link; every block, the first
  // ones the others wait for too, arrived at the end of that burst. gige-128, 64 ranks, 16 KiB
  // in 5 blocks, the network alone: 0.932 ms unpaced, 0.483 paced (the cost model: 0.48).
  out.set_paced_until(std::numeric_limits<int64_t>::max(), paced_send_bytes(in.cost));
  int recvblock[circulant::kMaxQ], sendblock[circulant::kMaxQ];
  for (int r = out.first_rank(); r < out.last_rank(); ++r) {
    const int v = ((r - root) % p + p) % p;
    circulant::recv_schedule(sk, v, recvblock);
    circulant::send_schedule(sk, v, sendblock);
    for (int t = 0; t < circulant::real_rounds(q, n); ++t) {
      const circulant::Round rd = circulant::round_of(q, n, t);
      const int skip = sk.skip[rd.k];
      const int to = (v + skip) % p, from = (v - skip + p) % p;
      const int sent = sendblock[rd.k] + rd.offset;
      const int got = recvblock[rd.k] + rd.offset;
      if (sent >= 0 && to != 0) {
        const int b = std::min(sent, n - 1);
        out.send(r, t, real(to), BlockSet::range(b, b + 1));
      }
      if (got >= 0 && v != 0) {
        const int b = std::min(got, n - 1);
        out.recv(r, t, real(from), BlockSet::range(b, b + 1), Combine::copy);
      }
    }
  }
}

}  // namespace papcoll
