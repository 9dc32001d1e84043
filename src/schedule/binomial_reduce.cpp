// Binomial-tree reduce of the whole vector (MPICH's MPIR_Reduce_binomial; the BNOM baseline of
// "Improving Clairvoyant", Sect. 6): with relative rank v = (r - root) mod p, in round k every v
// whose lowest set bit is 2^k sends everything it has gathered to v - 2^k. ceil(log2 p) rounds;
// not segmented: each message carries all B blocks (B only changes the block split). Rank v first
// receives from v + 2^i for every 2^i below its lowest set bit (every 2^i < p for the root).
#include "schedule/reduce_generators.hpp"

namespace papcoll {

void binomial_reduce_schedule(const GeneratorInput& in, ScheduleSink& out) {
  const int p = in.p, root = reduce_root(in);
  const BlockSet all = BlockSet::range(0, in.blocks);
  for (int r = out.first_rank(); r < out.last_rank(); ++r) {
    const int v = ((r - root) % p + p) % p;
    const int low = v == 0 ? 31 : __builtin_ctz(static_cast<unsigned>(v));
    for (int k = 0; k < low && (int64_t{1} << k) < p; ++k)
      if (v + (int64_t{1} << k) < p) out.recv(r, k, (v + (1 << k) + root) % p, all, Combine::reduce);
    if (v != 0) out.send(r, low, (v - (1 << low) + root) % p, all);
  }
}

}  // namespace papcoll
