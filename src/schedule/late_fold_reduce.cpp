// Late-fold reduce (docs/algorithms.md, "late-fold"): the reduce counterpart of the late-fold
// all-reduce. The early group E reduces while the late ranks compute, and the late ranks' data
// makes one pass to the root:
//
//  - root early (in E): E runs the time reversal of the circulant broadcast from the root, a
//    round-optimal pipelined reduce (n - 1 + O(log p) block rounds), and the late ranks stream
//    their data along a chain in arrival order into the root, block by block;
//  - root late: E runs the same reversal without the root's transfers, which leaves block b of E's
//    sum at the rank N_b the root would have sent it to; the other late ranks' chain streams into
//    the N_b, and each N_b hands its blocks to the root, one per round;
//  - no late ranks: the reversal over all ranks (a pipelined reduce in n - 1 + O(log p) rounds).
//
// How many of the last ranks in arrival order count as late (0..8) is chosen by the cost model's
// estimate on the plan's quantised arrivals (late_fold.hpp), so the schedule depends on the
// arrivals only through the plan.
#include <algorithm>
#include <limits>

#include "schedule/estimate.hpp"
#include "schedule/late_fold.hpp"
#include "schedule/reduce_generators.hpp"

namespace papcoll {
namespace {

constexpr int kMaxLate = 8;

// Who is where: positions of the circulant (0 = the root), the chain in arrival order, and
// whether the root is one of the late ranks (then it is no real position of the reduce-scatter).
struct Layout {
  std::vector<int> rank_at, position, chain;
  bool root_late = false;
};
Layout layout(const std::vector<int>& order, int root, int late) {
  const int p = static_cast<int>(order.size());
  Layout l;
  l.rank_at.push_back(root);
  for (int i = 0; i < p; ++i) {
    const int r = order[i];
    if (r == root) {
      l.root_late = i >= p - late;
      continue;
    }
    (i >= p - late ? l.chain : l.rank_at).push_back(r);
  }
  l.position.assign(static_cast<size_t>(p), -1);
  for (int v = 0; v < static_cast<int>(l.rank_at.size()); ++v) l.position[l.rank_at[v]] = v;
  return l;
}

struct Rounds {
  int64_t t1, r2;  // phase 1: [0, t1); the root takes block b in round r2 + b
};
Rounds rounds_of(const FoldCirculant& c, int late) {
  const int64_t t1 = c.positions() >= 2 ? c.rounds() : 0;
  return {t1, t1 + late + 1};
}

// The cost model's mean elapsed time of the schedule with the last `late` ranks late: the
// reduce-scatter starts when E is complete and takes its rounds at one reduced block each, so a
// position is done with the reversal of its first forward round; the chain's blocks follow one
// round apart once all late ranks are there.
double estimate_late(const GeneratorInput& in, const std::vector<int>& order,
                     const std::vector<double>& a, int late) {
  const int p = in.p, root = reduce_root(in);
  const BlockRuns runs = late_fold_runs(in.blocks, p);
  const int n = runs.count();
  const RunClock tr = run_clock(in, runs, true);
  const Layout l = layout(order, root, late);
  const int positions = static_cast<int>(l.rank_at.size());
  std::vector<double> finish(static_cast<size_t>(p));
  double s1 = -std::numeric_limits<double>::infinity();
  for (int v = l.root_late ? 1 : 0; v < positions; ++v) s1 = std::max(s1, a[l.rank_at[v]]);
  double t1_end = s1;
  if (positions >= (l.root_late ? 3 : 2)) {  // else no transfer among E
    const FoldCirculant c(positions, n);
    std::vector<FoldCirculant::Timing> timing(static_cast<size_t>(positions));
    int last = n - 1;
    for (int v = 1; v < positions; ++v) {
      timing[v] = c.timing(v);
      last = std::max(last, timing[v].last);
    }
    // Round r of the reversal carries forward round last - r's block: time it by the forward
    // rounds it mirrors.
    t1_end = s1 + tr.at(last + 1);
    for (int v = 1; v < positions; ++v)
      finish[l.rank_at[v]] = s1 + tr.at(last + 1) - tr.at(timing[v].first);
  }
  finish[root] = t1_end;
  if (late == 0) return estimate::mean_elapsed(finish, a);
  // The chain's last member hands block b to the root (root early) or to N_b (root late), the N_b
  // then to the root.
  const double receiver = l.root_late ? t1_end : a[root];
  const double chain_out =
      l.chain.empty() ? a[root] : chain_estimate(l.chain, a, receiver, tr, finish);
  // The root takes block b one round after the later of the reduce-scatter and the chain.
  const double first = std::max({t1_end, chain_out, a[root]});
  finish[root] = std::max(finish[root], first + tr.at(n));
  if (l.root_late) {  // N_b hands block b to the root in round b
    const FoldCirculant c(positions, n);
    for (int b = std::max(0, n - c.q()); b < n; ++b) {
      const int owner = l.rank_at[c.owner(b)];
      finish[owner] = std::max(finish[owner], first + tr.at(b + 1));
    }
  }
  return estimate::mean_elapsed(finish, a);
}

int chosen_late(const GeneratorInput& in, const LateFoldPlan& plan) {
  const int p = in.p;
  if (p < 2 || plan.prr.slot.back() == 0) return 0;
  int best = 0;
  double best_time = estimate_late(in, plan.prr.order, plan.quantised, 0);
  for (int late = 1; late <= std::min(p - 1, kMaxLate); ++late) {
    const double t = estimate_late(in, plan.prr.order, plan.quantised, late);
    if (t < best_time) best = late, best_time = t;
  }
  return best;
}

}  // namespace

void late_fold_reduce_schedule(const GeneratorInput& in, ScheduleSink& out) {
  const int p = in.p, root = reduce_root(in);
  if (p == 1) return;
  const BlockRuns runs = late_fold_runs(in.blocks, p);
  const int n = runs.count();
  auto one = [&](int b) { return runs.set(b); };
  const LateFoldPlan plan = late_fold_plan(in);
  const int late = chosen_late(in, plan);
  const Layout l = layout(plan.prr.order, root, late);
  const int positions = static_cast<int>(l.rank_at.size());
  const FoldCirculant c(positions, n);
  const Rounds rd = rounds_of(c, late);
  const int chain = static_cast<int>(l.chain.size());
  // The chain's hop h carries block b in round r2 + b - chain + h: the last hop reaches the root
  // (root early) or N_b (root late) one round before the root takes block b.
  auto hop_round = [&](int b, int h) { return rd.r2 + b - chain + h; };
  auto last_hop_to = [&](int b) { return l.root_late ? l.rank_at[c.owner(b)] : root; };
  for (int r = out.first_rank(); r < out.last_rank(); ++r) {
    const int v = l.position[r];
    if (v < 0) {
      const int i = static_cast<int>(std::find(l.chain.begin(), l.chain.end(), r) - l.chain.begin());
      for (int b = 0; b < n; ++b) {
        if (i > 0) out.recv(r, hop_round(b, i - 1), l.chain[i - 1], one(b), Combine::reduce);
        out.send(r, hop_round(b, i), i + 1 < chain ? l.chain[i + 1] : last_hop_to(b), one(b));
      }
      continue;
    }
    if (positions >= 2) {
      // The reversal of the broadcast: a forward receive from u is a send of the partial sum to
      // u, a forward send to w a reducing receive from w. Without a real root (root late) the
      // transfers with position 0 are left out and N_b keeps block b.
      const std::vector<FoldCirculant::Transfer> ts = c.transfers(v);
      for (auto it = ts.rbegin(); it != ts.rend(); ++it) {
        if (l.root_late && (it->peer == 0 || v == 0)) continue;
        const int64_t round = rd.t1 - 1 - it->round;
        if (it->send)
          out.recv(r, round, l.rank_at[it->peer], one(it->block), Combine::reduce);
        else
          out.send(r, round, l.rank_at[it->peer], one(it->block));
      }
    }
    if (late == 0) continue;
    for (int b = 0; b < n; ++b) {
      if (v == 0) {  // the root takes the late stream (root early) or N_b's blocks (root late)
        if (l.root_late)
          out.recv(r, rd.r2 + b, l.rank_at[c.owner(b)], one(b), Combine::reduce);
        else
          out.recv(r, hop_round(b, chain - 1), l.chain.back(), one(b), Combine::reduce);
      } else if (l.root_late && c.owner(b) == v) {
        if (chain > 0) out.recv(r, hop_round(b, chain - 1), l.chain.back(), one(b), Combine::reduce);
        out.send(r, rd.r2 + b, root, one(b));
      }
    }
  }
}

std::string late_fold_reduce_arrival_key(const GeneratorInput& in) {
  return late_fold_plan(in).prr.key();
}

double late_fold_reduce_predict(const GeneratorInput& in) {
  if (in.p == 1) return 0;
  const LateFoldPlan plan = late_fold_plan(in);
  return estimate_late(in, plan.prr.order, estimate::arrivals_of(in), chosen_late(in, plan));
}

}  // namespace papcoll
