// Recursive doubling (butterfly) all-reduce: log2(p') rounds of full-vector exchange between
// partners v and v^mask, with the non-power-of-two fold of power_of_two_fold.hpp.
#include "schedule/allreduce/power_of_two_fold.hpp"
#include "schedule/allreduce_generators.hpp"
#include "schedule/estimate.hpp"

namespace papcoll {

void recursive_doubling_allreduce_schedule(const GeneratorInput& in, ScheduleSink& out) {
  const PowerOfTwoFold f(in.p);
  const BlockSet all = BlockSet::range(0, in.blocks);
  const int levels = f.log2_pof2();
  for (int r = out.first_rank(); r < out.last_rank(); ++r) {
    if (f.folded_out(r)) {  // hands its vector to r + 1 first, gets the result back last
      out.send(r, 0, r + 1, all);
      out.recv(r, 1 + levels, r + 1, all, Combine::copy);
      continue;
    }
    if (f.takes_fold(r)) out.recv(r, 0, r - 1, all, Combine::reduce);
    const int v = f.virtual_rank(r);
    for (int l = 0; l < levels; ++l) {
      const int partner = f.real_rank(v ^ (1 << l));
      out.send(r, 1 + l, partner, all);
      out.recv(r, 1 + l, partner, all, Combine::reduce);
    }
    if (f.takes_fold(r)) out.send(r, 1 + levels, r - 1, all);
  }
}

// The fold, then log2 p' exchanges of the whole vector (estimate.hpp).
double recursive_doubling_allreduce_predict(const GeneratorInput& in) {
  const PowerOfTwoFold f(in.p);
  const CostParams& c = in.cost;
  return estimate::folded_butterfly(in, f.extra,
                                    f.log2_pof2() * (c.alpha + (c.beta + c.gamma) * in.bytes));
}

}  // namespace papcoll
