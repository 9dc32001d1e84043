// Rabenseifner reduce (Rabenseifner 2004; Thakur et al. 2005, Sect. 4.3; the RAB baseline of
// "Improving Clairvoyant", Sect. 6): reduce-scatter by recursive halving over block ranges, then a
// binomial gather of the pieces to the root. Any p: with p' the largest power of two <= p and
// r = p - p', relative ranks 2i+1 < 2r first hand their whole vector to 2i; the p' remaining
// ranks run the power-of-two algorithm as virtual ranks. Ranks are taken relative to the root,
// which is relative rank 0 and so always virtual rank 0, where the gather ends.
#include <utility>

#include "schedule/allreduce/halving_ranges.hpp"
#include "schedule/estimate.hpp"
#include "schedule/reduce_generators.hpp"

namespace papcoll {

void rabenseifner_reduce_schedule(const GeneratorInput& in, ScheduleSink& out) {
  const int p = in.p, root = reduce_root(in);
  int pof2 = 1, levels = 0;
  while (pof2 <= p / 2) {
    pof2 *= 2;
    ++levels;
  }
  const int extra = p - pof2;
  auto real = [&](int rel) { return (rel + root) % p; };
  auto real_of_virtual = [&](int v) { return real(v < extra ? 2 * v : v + extra); };
  auto span = [](std::pair<int, int> r) { return BlockSet::range(r.first, r.second); };
  const BlockSet all = BlockSet::range(0, in.blocks);
  for (int r = out.first_rank(); r < out.last_rank(); ++r) {
    const int rel = ((r - root) % p + p) % p;
    if (rel < 2 * extra && rel % 2 == 1) {  // folded out
      out.send(r, 0, real(rel - 1), all);
      continue;
    }
    if (rel < 2 * extra) out.recv(r, 0, real(rel + 1), all, Combine::reduce);
    const int v = rel < 2 * extra ? rel / 2 : rel - extra;
    const auto mine = halving_ranges(v, pof2, levels, in.blocks);
    for (int l = 0; l < levels; ++l) {
      const int mask = pof2 >> (l + 1);
      const auto [lo, hi] = mine[l];
      const int mid = lo + (hi - lo) / 2;
      const bool keep_low = (v & mask) == 0;
      out.send(r, 1 + l, real_of_virtual(v ^ mask),
               keep_low ? BlockSet::range(mid, hi) : BlockSet::range(lo, mid));
      out.recv(r, 1 + l, real_of_virtual(v ^ mask), span(mine[l + 1]), Combine::reduce);
    }
    // Binomial gather, finest split first: in the step of `mask` (after halving l, round
    // 1 + levels + (levels - 1 - l)) a rank whose lowest set bit is mask hands what it has
    // gathered, its range after halving l, to v - mask; v first takes the same from v + mask for
    // every mask below its lowest set bit.
    for (int l = levels - 1; l >= 0; --l) {
      const int mask = pof2 >> (l + 1);
      const int round = 1 + levels + (levels - 1 - l);
      if (v % (2 * mask) == mask) {
        out.send(r, round, real_of_virtual(v - mask), span(mine[l + 1]));
        break;
      }
      const auto theirs = halving_ranges(v + mask, pof2, levels, in.blocks);
      out.recv(r, round, real_of_virtual(v + mask), span(theirs[l + 1]), Combine::copy);
    }
  }
}

// The fold (a folded-out rank finishes when its vector has reached its partner), the halvings with
// every rank depending on every other (all start the gather together, estimate.hpp), then the
// binomial gather bottom-up as in binomial_reduce_predict, each level's message the range a rank
// holds after that halving.
double rabenseifner_reduce_predict(const GeneratorInput& in) {
  const int p = in.p, root = reduce_root(in);
  int pof2 = 1, levels = 0;
  while (pof2 <= p / 2) {
    pof2 *= 2;
    ++levels;
  }
  const int extra = p - pof2;
  const std::vector<double> a = estimate::arrivals_of(in);
  const CostParams& c = in.cost;
  auto real = [&](int rel) { return (rel + root) % p; };
  std::vector<double> finish(static_cast<size_t>(p));
  double start = 0;
  for (int rel = 0; rel < p; ++rel) {
    if (rel < 2 * extra && rel % 2 == 1) {
      finish[real(rel)] = std::max(a[real(rel)], a[real(rel - 1)]) + c.alpha + c.beta * in.bytes;
      continue;
    }
    double ready = a[real(rel)];
    if (rel < 2 * extra)
      ready = std::max(ready, a[real(rel + 1)]) + c.alpha + (c.beta + c.gamma) * in.bytes;
    start = rel == 0 ? ready : std::max(start, ready);
  }
  std::vector<double> held(static_cast<size_t>(levels) + 1);  // bytes held after halving l - 1
  int range = in.blocks;
  for (int l = 0; l < levels; ++l) {
    range = (range + 1) / 2;
    held[l] = estimate::blocks_bytes(in, range);
    start += c.alpha + (c.beta + c.gamma) * held[l];
  }
  auto real_of_virtual = [&](int v) { return real(v < extra ? 2 * v : v + extra); };
  std::vector<double> ready(static_cast<size_t>(pof2), start);
  for (int v = pof2 - 1; v >= 0; --v) {
    double t = start;
    for (int l = levels - 1; l >= 0; --l) {
      const int mask = pof2 >> (l + 1);
      const double message = c.alpha + c.beta * held[l];
      if (v % (2 * mask) == mask) {
        finish[real_of_virtual(v)] = t + message;  // hands its range to v - mask
        break;
      }
      t = std::max(t, ready[v + mask]) + message;
    }
    ready[v] = t;
    if (v == 0) finish[real_of_virtual(0)] = t;
  }
  return estimate::mean_elapsed(finish, a);
}

}  // namespace papcoll
