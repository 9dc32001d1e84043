// Recursive doubling (butterfly) all-reduce: log2(p') rounds of full-vector exchange between
// partners v and v^mask, with the non-power-of-two fold of power_of_two_fold.hpp.
#include "schedule/allreduce_generators.hpp"
#include "schedule/builder.hpp"
#include "schedule/power_of_two_fold.hpp"

namespace papcoll {

Schedule recursive_doubling_allreduce_schedule(const GeneratorInput& in) {
  const PowerOfTwoFold f(in.p);
  ScheduleBuilder b(Collective::allreduce, "recursive-doubling", in.p, in.blocks);
  const std::vector<int> all = block_span(0, in.blocks);
  for (int i = 0; i < f.extra; ++i) b.transfer(0, 2 * i, 2 * i + 1, all, Combine::reduce);
  const int levels = f.log2_pof2();
  for (int l = 0; l < levels; ++l)
    for (int v = 0; v < f.pof2; ++v)
      b.transfer(1 + l, f.real_rank[v], f.real_rank[v ^ (1 << l)], all, Combine::reduce);
  for (int i = 0; i < f.extra; ++i) b.transfer(1 + levels, 2 * i + 1, 2 * i, all, Combine::copy);
  return std::move(b).build();
}

}  // namespace papcoll
