// Rabenseifner all-reduce (Rabenseifner 2004; Thakur et al. 2005): reduce-scatter by recursive
// halving over block ranges, then allgather by recursive doubling, for any p through the fold of
// power_of_two_fold.hpp. Any B works: a half that holds no block is simply not sent.
#include "schedule/allreduce_generators.hpp"
#include "schedule/builder.hpp"
#include "schedule/power_of_two_fold.hpp"

namespace papcoll {

Schedule rabenseifner_allreduce_schedule(const GeneratorInput& in) {
  const PowerOfTwoFold f(in.p);
  ScheduleBuilder b(Collective::allreduce, "rabenseifner", in.p, in.blocks);
  const std::vector<int> all = block_span(0, in.blocks);
  for (int i = 0; i < f.extra; ++i) b.transfer(0, 2 * i, 2 * i + 1, all, Combine::reduce);

  const int levels = f.log2_pof2();
  // range[v] = [lo, hi): the blocks virtual rank v is responsible for after each halving.
  std::vector<std::pair<int, int>> range(static_cast<size_t>(f.pof2), {0, in.blocks});
  std::vector<std::vector<std::pair<int, int>>> history;  // ranges before each halving
  for (int l = 0; l < levels; ++l) {
    const int mask = f.pof2 >> (l + 1);
    history.push_back(range);
    std::vector<std::pair<int, int>> next = range;
    for (int v = 0; v < f.pof2; ++v) {
      const auto [lo, hi] = range[v];
      const int mid = lo + (hi - lo) / 2;
      const bool keep_low = (v & mask) == 0;
      next[v] = keep_low ? std::make_pair(lo, mid) : std::make_pair(mid, hi);
      const std::vector<int> give = keep_low ? block_span(mid, hi) : block_span(lo, mid);
      b.transfer(1 + l, f.real_rank[v], f.real_rank[v ^ mask], give, Combine::reduce);
    }
    range = next;
  }
  // Allgather retraces the halvings backwards: each rank sends what it owns to the partner it
  // split with, whose half is the other one.
  for (int l = levels - 1; l >= 0; --l) {
    const int mask = f.pof2 >> (l + 1);
    const int round = 1 + levels + (levels - 1 - l);
    for (int v = 0; v < f.pof2; ++v)
      b.transfer(round, f.real_rank[v], f.real_rank[v ^ mask],
                 block_span(range[v].first, range[v].second), Combine::copy);
    range = history[l];
  }
  for (int i = 0; i < f.extra; ++i)
    b.transfer(1 + 2 * levels, 2 * i + 1, 2 * i, all, Combine::copy);
  return std::move(b).build();
}

}  // namespace papcoll
