// Träff's n-block broadcast on the circulant graph (arXiv 2312.11236, Algorithm 1). In round t
// (phase j, k = (x + t) mod q) virtual processor v sends sendblock_v[k] + offset to
// v + skip[k] and receives recvblock_v[k] + offset from v - skip[k]; negative blocks are not
// communicated, larger ones are capped to n - 1, nothing is sent to the root. Both sides derive
// the block from their own schedule; the generator checks that they agree (correctness
// conditions 1 and 2) instead of trusting one side.
#include <algorithm>
#include <stdexcept>

#include "schedule/bcast_generators.hpp"
#include "schedule/builder.hpp"
#include "schedule/circulant_tables.hpp"

namespace papcoll {

Schedule circulant_bcast_schedule(const GeneratorInput& in) {
  const int p = in.p;
  const int n = std::max(1, in.blocks);
  const int root = bcast_root(in);
  ScheduleBuilder b(Collective::bcast, "circulant", p, n, root);
  if (p == 1) return std::move(b).build();
  const circulant::Tables tab = circulant::make_tables(p);
  const int q = tab.skips.q;
  auto real = [&](int v) { return (v + root) % p; };
  for (int t = 0; t < circulant::real_rounds(q, n); ++t) {
    const circulant::Round rd = circulant::round_of(q, n, t);
    const int skip = tab.skips.skip[rd.k];
    for (int v = 0; v < p; ++v) {
      const int to = (v + skip) % p;
      const int sent = tab.sendblock(v, rd.k) + rd.offset;
      const int expected = tab.recvblock(to, rd.k) + rd.offset;
      if (sent != expected)
        throw std::logic_error("circulant bcast: send and receive schedules disagree");
      if (sent < 0 || to == 0) continue;
      b.transfer(t, real(v), real(to), {std::min(sent, n - 1)}, Combine::copy);
    }
  }
  return std::move(b).build();
}

}  // namespace papcoll
