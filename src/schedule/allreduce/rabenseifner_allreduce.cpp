// Rabenseifner all-reduce (Rabenseifner 2004; Thakur et al. 2005): reduce-scatter by recursive
// halving over block ranges, then allgather by recursive doubling, for any p through the fold of
// power_of_two_fold.hpp. Any B works: a half that holds no block is simply not sent. In halving
// step l virtual rank v sends the half of its range it gives up to v ^ mask and receives (reduces)
// the half it keeps; the allgather retraces the steps backwards, each rank sending what it owns to
// the partner it split with and receiving the partner's part.
#include "schedule/allreduce/halving_ranges.hpp"
#include "schedule/allreduce/power_of_two_fold.hpp"
#include "schedule/allreduce_generators.hpp"
#include "schedule/estimate.hpp"

namespace papcoll {

void rabenseifner_allreduce_schedule(const GeneratorInput& in, ScheduleSink& out) {
  const PowerOfTwoFold f(in.p);
  const BlockSet all = BlockSet::range(0, in.blocks);
  const int levels = f.log2_pof2();
  auto span = [](std::pair<int, int> r) { return BlockSet::range(r.first, r.second); };
  for (int r = out.first_rank(); r < out.last_rank(); ++r) {
    if (f.folded_out(r)) {
      out.send(r, 0, r + 1, all);
      out.recv(r, 1 + 2 * levels, r + 1, all, Combine::copy);
      continue;
    }
    if (f.takes_fold(r)) out.recv(r, 0, r - 1, all, Combine::reduce);
    const int v = f.virtual_rank(r);
    const auto mine = halving_ranges(v, f.pof2, levels, in.blocks);
    for (int l = 0; l < levels; ++l) {
      const int mask = f.pof2 >> (l + 1);
      const int partner = f.real_rank(v ^ mask);
      const auto [lo, hi] = mine[l];
      const int mid = lo + (hi - lo) / 2;
      const bool keep_low = (v & mask) == 0;
      out.send(r, 1 + l, partner, keep_low ? BlockSet::range(mid, hi) : BlockSet::range(lo, mid));
      out.recv(r, 1 + l, partner, span(mine[l + 1]), Combine::reduce);
    }
    for (int l = levels - 1; l >= 0; --l) {
      const int mask = f.pof2 >> (l + 1);
      const int round = 1 + levels + (levels - 1 - l);
      const auto theirs = halving_ranges(v ^ mask, f.pof2, levels, in.blocks);
      out.send(r, round, f.real_rank(v ^ mask), span(mine[l + 1]));
      out.recv(r, round, f.real_rank(v ^ mask), span(theirs[l + 1]), Combine::copy);
    }
    if (f.takes_fold(r)) out.send(r, 1 + 2 * levels, r - 1, all);
  }
}

// The fold, then the halvings (the larger half of each split, reduced) and the doublings that
// retrace them (estimate.hpp).
double rabenseifner_allreduce_predict(const GeneratorInput& in) {
  const PowerOfTwoFold f(in.p);
  const CostParams& c = in.cost;
  double mid = 0;
  int range = in.blocks;
  for (int l = 0; l < f.log2_pof2(); ++l) {
    range = (range + 1) / 2;
    const double half = estimate::blocks_bytes(in, range);
    mid += 2 * c.alpha + (2 * c.beta + c.gamma) * half;
  }
  return estimate::folded_butterfly(in, f.extra, mid);
}

}  // namespace papcoll
