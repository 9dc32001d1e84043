// van de Geijn's long-message broadcast (as in MPICH): the B blocks are dealt to p chunks (chunk j
// = blocks [j*B/p, (j+1)*B/p)); a binomial scatter gives virtual rank v chunk v (the edge v -> c
// with c = v + 2^i carries the chunks of c's subtree [c, c + 2^i) in round q-1-i), then a ring
// allgather circulates the chunks in p - 1 rounds. The root already holds everything, so ring
// messages to it are left out. Empty chunks (B < p) send nothing.
#include <algorithm>
#include <cstdint>

#include "schedule/bcast_generators.hpp"
#include "schedule/binomial_tree.hpp"
#include "schedule/builder.hpp"

namespace papcoll {

Schedule scatter_allgather_bcast_schedule(const GeneratorInput& in) {
  const int p = in.p;
  const int n = std::max(1, in.blocks);
  const int root = bcast_root(in);
  ScheduleBuilder b(Collective::bcast, "scatter-allgather", p, n, root);
  auto real = [&](int v) { return (v + root) % p; };
  auto chunks = [&](int first, int last) {  // blocks of chunks [first, last)
    return block_span(static_cast<int>(static_cast<int64_t>(first) * n / p),
                      static_cast<int>(static_cast<int64_t>(last) * n / p));
  };
  const int q = binomial::depth(p);
  for (int v = 0; v < p; ++v)
    for (const auto& [c, i] : binomial::children(p, v))
      b.transfer(q - 1 - i, real(v), real(c), chunks(c, std::min(p, c + (1 << i))),
                 Combine::copy);
  for (int h = 0; h + 1 < p; ++h)
    for (int v = 0; v < p; ++v) {
      const int to = (v + 1) % p;
      if (to == 0) continue;
      const int j = ((v - h) % p + p) % p;  // v holds chunk v - h: its own, then what came in
      b.transfer(q + h, real(v), real(to), chunks(j, j + 1), Combine::copy);
    }
  return std::move(b).build();
}

}  // namespace papcoll
