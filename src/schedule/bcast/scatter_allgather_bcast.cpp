// van de Geijn's long-message broadcast (as in MPICH): the B blocks are dealt to p chunks (chunk j
// = blocks [j*B/p, (j+1)*B/p)); a binomial scatter gives virtual rank v chunk v (the edge v -> c
// with c = v + 2^i carries the chunks of c's subtree [c, c + 2^i) in round q-1-i), then a ring
// allgather circulates the chunks in p - 1 rounds. The root already holds everything, so ring
// messages to it are left out. Empty chunks (B < p) send nothing.
#include <algorithm>
#include <cstdint>

#include "schedule/bcast/binomial_tree.hpp"
#include "schedule/bcast_generators.hpp"

namespace papcoll {

void scatter_allgather_bcast_schedule(const GeneratorInput& in, ScheduleSink& out) {
  const int p = in.p;
  const int n = std::max(1, in.blocks);
  const int root = bcast_root(in);
  auto real = [&](int v) { return (v + root) % p; };
  auto chunks = [&](int first, int last) {  // blocks of chunks [first, last)
    return BlockSet::range(static_cast<int>(static_cast<int64_t>(first) * n / p),
                           static_cast<int>(static_cast<int64_t>(last) * n / p));
  };
  const int q = binomial::depth(p);
  for (int r = out.first_rank(); r < out.last_rank(); ++r) {
    const int v = ((r - root) % p + p) % p;
    if (v != 0) {  // v = parent + 2^i with 2^i its lowest set bit
      const int low = v & -v;
      const int i = __builtin_ctz(static_cast<unsigned>(low));
      out.recv(r, q - 1 - i, real(v - low),
               chunks(v, static_cast<int>(std::min<int64_t>(p, int64_t{v} + low))), Combine::copy);
    }
    for (const auto& [c, i] : binomial::children(p, v))
      out.send(r, q - 1 - i, real(c),
               chunks(c, static_cast<int>(std::min<int64_t>(p, int64_t{c} + (int64_t{1} << i)))));
    for (int h = 0; h + 1 < p; ++h) {
      const int j = ((v - h) % p + p) % p;  // v holds chunk v - h: its own, then what came in
      if ((v + 1) % p != 0) out.send(r, q + h, real((v + 1) % p), chunks(j, j + 1));
      const int k = ((v - 1 - h) % p + p) % p;
      if (v != 0) out.recv(r, q + h, real((v - 1 + p) % p), chunks(k, k + 1), Combine::copy);
    }
  }
}

}  // namespace papcoll
