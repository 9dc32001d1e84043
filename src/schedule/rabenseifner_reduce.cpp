// Rabenseifner reduce (Rabenseifner 2004; Thakur et al. 2005, Sect. 4.3; the RAB baseline of
// "Improving Clairvoyant", Sect. 6): reduce-scatter by recursive halving over block ranges, then a
// binomial gather of the pieces to the root. Any p: with p' the largest power of two <= p and
// r = p - p', relative ranks 2i+1 < 2r first hand their whole vector to 2i; the p' remaining
// ranks run the power-of-two algorithm as virtual ranks. Ranks are taken relative to the root,
// which is relative rank 0 and so always virtual rank 0, where the gather ends.
#include <utility>

#include "schedule/builder.hpp"
#include "schedule/reduce_generators.hpp"

namespace papcoll {

Schedule rabenseifner_reduce_schedule(const GeneratorInput& in) {
  const int p = in.p, root = reduce_root(in);
  ScheduleBuilder b(Collective::reduce, "rabenseifner", p, in.blocks, root);
  int pof2 = 1, levels = 0;
  while (pof2 * 2 <= p) {
    pof2 *= 2;
    ++levels;
  }
  const int extra = p - pof2;
  auto real = [&](int rel) { return (rel + root) % p; };
  auto real_of_virtual = [&](int v) { return real(v < extra ? 2 * v : v + extra); };
  const std::vector<int> all = block_span(0, in.blocks);
  for (int i = 0; i < extra; ++i) b.transfer(0, real(2 * i + 1), real(2 * i), all, Combine::reduce);

  // after[l][v]: the block range [lo, hi) of virtual rank v after halving step l.
  std::vector<std::vector<std::pair<int, int>>> after;
  std::vector<std::pair<int, int>> range(static_cast<size_t>(pof2), {0, in.blocks});
  for (int l = 0; l < levels; ++l) {
    const int mask = pof2 >> (l + 1);
    std::vector<std::pair<int, int>> next = range;
    for (int v = 0; v < pof2; ++v) {
      const auto [lo, hi] = range[v];
      const int mid = lo + (hi - lo) / 2;
      const bool keep_low = (v & mask) == 0;
      next[v] = keep_low ? std::make_pair(lo, mid) : std::make_pair(mid, hi);
      b.transfer(1 + l, real_of_virtual(v), real_of_virtual(v ^ mask),
                 keep_low ? block_span(mid, hi) : block_span(lo, mid), Combine::reduce);
    }
    range = next;
    after.push_back(range);
  }
  // Binomial gather, finest split first: a rank whose lowest set bit is the step's mask has
  // gathered after[l][v] (the ranges of v .. v + mask - 1) and hands it to v - mask.
  for (int l = levels - 1; l >= 0; --l) {
    const int mask = pof2 >> (l + 1);
    const int round = 1 + levels + (levels - 1 - l);
    for (int v = mask; v < pof2; v += 2 * mask)
      b.transfer(round, real_of_virtual(v), real_of_virtual(v - mask),
                 block_span(after[l][v].first, after[l][v].second), Combine::copy);
  }
  return std::move(b).build();
}

}  // namespace papcoll
