// Binomial-tree reduce of the whole vector (MPICH's MPIR_Reduce_binomial; the BNOM baseline of
// "Improving Clairvoyant", Sect. 6): with relative rank v = (r - root) mod p, in round k every v
// whose lowest set bit is 2^k sends everything it has gathered to v - 2^k. ceil(log2 p) rounds;
// not segmented: each message carries all B blocks (B only changes the block split).
#include "schedule/builder.hpp"
#include "schedule/reduce_generators.hpp"

namespace papcoll {

Schedule binomial_reduce_schedule(const GeneratorInput& in) {
  const int p = in.p, root = reduce_root(in);
  ScheduleBuilder b(Collective::reduce, "binomial", p, in.blocks, root);
  const std::vector<int> all = block_span(0, in.blocks);
  for (int v = 1; v < p; ++v) {
    const int k = __builtin_ctz(static_cast<unsigned>(v));
    b.transfer(k, (v + root) % p, (v - (1 << k) + root) % p, all, Combine::reduce);
  }
  return std::move(b).build();
}

}  // namespace papcoll
