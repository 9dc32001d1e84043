// Binomial-tree reduce of the whole vector (MPICH's MPIR_Reduce_binomial; the BNOM baseline of
// "Improving Clairvoyant", Sect. 6): with relative rank v = (r - root) mod p, in round k every v
// whose lowest set bit is 2^k sends everything it has gathered to v - 2^k. ceil(log2 p) rounds;
// not segmented: each message carries all B blocks (B only changes the block split). Rank v first
// receives from v + 2^i for every 2^i below its lowest set bit (every 2^i < p for the root).
#include "schedule/estimate.hpp"
#include "schedule/reduce_generators.hpp"

namespace papcoll {

void binomial_reduce_schedule(const GeneratorInput& in, ScheduleSink& out) {
  const int p = in.p, root = reduce_root(in);
  const BlockSet all = BlockSet::range(0, in.blocks);
  for (int r = out.first_rank(); r < out.last_rank(); ++r) {
    const int v = ((r - root) % p + p) % p;
    const int low = v == 0 ? 31 : __builtin_ctz(static_cast<unsigned>(v));
    for (int k = 0; k < low && (int64_t{1} << k) < p; ++k)
      if (v + (int64_t{1} << k) < p)
        out.recv(r, k, (v + (1 << k) + root) % p, all, Combine::reduce);
    if (v != 0) out.send(r, low, (v - (1 << low) + root) % p, all);
  }
}

// The tree bottom-up (children have larger relative ranks): v has its subtree's sum once it has
// received and reduced each child's, in round order, each as soon as both are ready; a child's
// send then ends one message later, and that is when the child finishes.
double binomial_reduce_predict(const GeneratorInput& in) {
  const int p = in.p, root = reduce_root(in);
  const std::vector<double> a = estimate::arrivals_of(in);
  const CostParams& c = in.cost;
  const double message = c.alpha + c.beta * in.bytes, reduce = c.gamma * in.bytes;
  std::vector<double> ready(static_cast<size_t>(p)), finish(static_cast<size_t>(p));
  for (int v = p - 1; v >= 0; --v) {
    const int r = (v + root) % p;
    double t = a[r];
    const int low = v == 0 ? 31 : __builtin_ctz(static_cast<unsigned>(v));
    for (int k = 0; k < low && (int64_t{1} << k) < p; ++k) {
      const int64_t child = v + (int64_t{1} << k);
      if (child >= p) break;
      const int cr = static_cast<int>((child + root) % p);
      const double start = std::max(t, ready[child]);
      finish[cr] = start + message;
      t = start + message + reduce;
    }
    ready[v] = t;
    if (v == 0) finish[r] = t;
  }
  return estimate::mean_elapsed(finish, a);
}

}  // namespace papcoll
