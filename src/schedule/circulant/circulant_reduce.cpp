// Round-optimal reduce on a circulant graph: the time reversal of Träff's n-block broadcast
// (arXiv 2312.11236, Algorithm 1; the reduce MPICH builds from it). In the broadcast every
// position but the root receives every block exactly once, from one neighbour, and passes it on to
// others; run backwards, every position sends every block exactly once, to that neighbour, after
// it has folded in what the positions it would have passed it on to send it. The root receives
// each block once, with every contribution in it, after n - 1 + ceil(log2 p) rounds; every round
// each position sends and receives at most one block. The broadcast's padding (FoldCirculant, in
// late_fold.hpp: q - 1 empty blocks after the real ones) makes the last real block travel once per
// edge like the others, which a reduction needs (the plain broadcast re-sends the last block in
// its final rounds, harmless when copying, a double count when reducing). Each position computes
// only its own schedules, O(n + log p).
#include <algorithm>

#include "schedule/estimate.hpp"
#include "schedule/late_fold/late_fold.hpp"
#include "schedule/reduce_generators.hpp"

namespace papcoll {

void circulant_reduce_schedule(const GeneratorInput& in, ScheduleSink& out) {
  const int p = in.p;
  if (p == 1) return;
  const FoldCirculant c(p, std::max(1, in.blocks));
  const int root = reduce_root(in);
  const int64_t last = c.rounds() - 1;
  auto real = [&](int v) { return (v + root) % p; };
  auto blocks = [&](int b) { return BlockSet::range(b, b + 1); };
  for (int r = out.first_rank(); r < out.last_rank(); ++r) {
    const int v = ((r - root) % p + p) % p;
    const std::vector<FoldCirculant::Transfer> ts = c.transfers(v);
    out.reserve(r, ts.size());
    // Backwards: the forward broadcast's last transfer is the reduce's first.
    for (auto it = ts.rbegin(); it != ts.rend(); ++it) {
      const int64_t round = last - it->round;
      if (it->send)
        out.recv(r, round, real(it->peer), blocks(it->block), Combine::reduce);
      else
        out.send(r, round, real(it->peer), blocks(it->block));
    }
  }
}

double reduce_rounds(const FoldCirculant& c) {
  // The padding stretches the real blocks' transfers over more rounds than a reduce that runs on
  // data needs: the root has every block reduced after Träff's n - 1 + q rounds (the broadcast's
  // round-optimal count, run backwards), which is the padded schedule's count when n is large.
  return std::min(c.last_real_round() + 1, c.blocks() - 1 + c.q());
}

// Every round is a lockstep exchange of one block (sent and reduced), and a position's first
// round waits for the positions that send to it, which wait for theirs: estimated as starting
// when the last rank arrives (a late rank holds up every position its blocks pass through, which
// is every position for its first blocks). Position v is done with its last reversed round, the
// one that reverses its first forward one.
double circulant_reduce_predict(const GeneratorInput& in) {
  const int p = in.p;
  if (p == 1) return 0;
  const int n = std::max(1, in.blocks), root = reduce_root(in);
  const FoldCirculant c(p, n);
  const std::vector<double> a = estimate::arrivals_of(in);
  const double start = *std::max_element(a.begin(), a.end());
  const double round = in.cost.alpha +
                       (in.cost.beta + in.cost.gamma) * estimate::blocks_bytes(in, 1);
  std::vector<double> finish(static_cast<size_t>(p));
  const double slots = c.last_real_round() + 1;
  const double scale = reduce_rounds(c) / slots;
  for (int v = 0; v < p; ++v) {
    const int first = v == 0 ? 0 : c.span(v).first;
    finish[(v + root) % p] = start + std::max(1.0, (slots - std::max(first, 0)) * scale) * round;
  }
  return estimate::mean_elapsed(finish, a);
}

}  // namespace papcoll
