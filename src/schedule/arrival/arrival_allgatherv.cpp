// Arrival-aware all-gatherv (docs/circulant.md, "Arrival-aware broadcast and
// all-gatherv"). Every rank needs every portion, so nobody finishes before the last rank's
// portion is out; what the early ranks can do is everything else. From the agreed arrival
// pattern:
//  - the early ranks exchange their portions among themselves with Träff's circulant all-to-all
//    broadcast (Algorithm 2 on the group, circulant_group.hpp) while the late ones compute;
//  - the late ranks join in waves: a wave is every late rank that is there when the previous
//    stage ends. Its portions go out once, in a circulant all-to-all broadcast over the group so
//    far plus the wave, whose only origins are the wave's ranks (with one late rank: a circulant
//    broadcast of its portion from it); then each rank of the wave receives everything gathered
//    before it in one message from a rank of the group, the holders rotating over the group so
//    that ranks of one wave get distinct ones (Patarasuk and Yuan's idea of serving ranks as
//    they arrive, applied to the all-gatherv). The large message comes last so that it delays
//    neither the wave's broadcast nor the holder's part in it.
// The early set is chosen by the Hockney model on the quantised arrivals: the prefix of the
// arrival order that gives the least total elapsed time, among the whole order and the (at most
// 16) positions after the largest gaps in the arrival slots. With no late rank it is exactly the
// circulant all-gatherv (the early group is every rank, in rank order).
//
// On one node the shared-memory transport runs this schedule too: a send publishes blocks, a late
// reader copies them when it arrives.
#include "schedule/arrival/arrival_allgatherv.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "schedule/allgatherv_generators.hpp"
#include "schedule/arrival/arrival_slots.hpp"
#include "schedule/circulant/circulant_group.hpp"
#include "schedule/estimate.hpp"

namespace papcoll {

namespace {

constexpr int kMaxSplitCandidates = 16;

// Hockney times of the plan's parts; portions are taken as equal (bytes / p each), so the plan
// depends on the counts only through the total.
struct Model {
  int p = 1, n = 1;
  double alpha = 0, beta = 0, bytes = 0;
  explicit Model(const GeneratorInput& in)
      : p(in.p),
        n(std::max(1, (std::max(1, in.blocks) + in.p - 1) / in.p)),
        alpha(in.cost.alpha),
        beta(in.cost.beta),
        bytes(in.bytes) {}
  // The circulant all-gatherv on g ranks of the portions of `origins` of them: a message per
  // round, each rank receiving every block of the origins but its own once (a round's message
  // carries a block of every origin that has reached the sender, so the bytes are spread over
  // the rounds: Algorithm 2 moves the data of the ring in the rounds of the tree).
  double stage(int g, int origins) const {
    if (g < 2) return 0;
    const double received = origins >= g ? origins - 1.0 : origins;
    return circulant::group_rounds(g, n) * alpha + beta * received * bytes / p;
  }
  // One message of `portions` portions.
  double message(int portions) const { return alpha + beta * portions * bytes / p; }
};

int ceil_div(int a, int b) { return (a + b - 1) / b; }

// Waves of the late ranks when the first k of the arrival order are early (a: arrivals in that
// order). Returns the model's total elapsed time; fills `waves` (first, last, turns) if given.
double simulate(const std::vector<double>& a, int k, const Model& m,
                std::vector<ArrivalAllgathervPlan::Wave>* waves) {
  const int p = static_cast<int>(a.size());
  const double sum = std::accumulate(a.begin(), a.end(), 0.0);
  double t = a[k - 1] + m.stage(k, k);
  if (k == p) return p * t - sum;
  double end = t, extra = 0;
  for (int first = k; first < p;) {
    const double start = std::max(t, a[first]);
    const int last =
        static_cast<int>(std::upper_bound(a.begin() + first, a.end(), start) - a.begin());
    const int w = last - first;
    end = start + m.stage(last, w);
    const int turns = ceil_div(w, first);
    t = end + turns * m.message(first);
    // The wave's ranks and their holders finish after their message.
    extra = 0;
    for (int i = 0; i < w; ++i) extra += 2 * (i / first + 1) * m.message(first);
    if (waves != nullptr) {
      ArrivalAllgathervPlan::Wave wave;
      wave.first = first;
      wave.last = last;
      wave.turns = turns;
      waves->push_back(wave);
    }
    first = last;
  }
  return p * end + extra - sum;
}

// The largest block count of the origins seq[first, last).
int most_blocks(const std::vector<int>& seq, int first, int last, int blocks, int p) {
  int n = 1;
  for (int i = first; i < last; ++i)
    n = std::max(n, static_cast<int>(origin_blocks(blocks, p, seq[i]).size()));
  return n;
}

std::vector<circulant::GroupOrigin> group_origins(const std::vector<int>& seq, int first, int last,
                                                  int blocks, int p) {
  std::vector<circulant::GroupOrigin> o;
  o.reserve(static_cast<size_t>(last - first));
  for (int v = first; v < last; ++v) {
    const int f = origin_first_block(blocks, p, seq[v]);
    o.push_back({v, {f, origin_first_block(blocks, p, seq[v] + 1) - f}});
  }
  return o;
}

// Every block of the ranks seq[0, first), ascending.
BlockSet gathered_before(const ArrivalAllgathervPlan& plan, int first, int p) {
  BlockSet s;
  for (int r = 0; r < p; ++r)
    if (plan.pos[r] < first)
      s.append_range(origin_first_block(plan.blocks, p, r),
                     origin_first_block(plan.blocks, p, r + 1));
  return s;
}

}  // namespace

double arrival_allgatherv_unit(const GeneratorInput& in) {
  const Model m(in);
  const double u = m.alpha + m.beta * m.bytes / m.n;
  return std::isfinite(u) && u > 1e-12 ? u : 1e-12;
}

ArrivalAllgathervPlan arrival_allgatherv_plan(const GeneratorInput& in) {
  const int p = in.p;
  ArrivalAllgathervPlan plan;
  plan.blocks = std::max(1, in.blocks);
  const double unit = arrival_allgatherv_unit(in);
  const ArrivalSlots s = arrival_slots(in, unit);
  const Model m(in);
  std::vector<double> a(static_cast<size_t>(p));
  for (int i = 0; i < p; ++i) a[i] = static_cast<double>(s.slot[s.order[i]]) * unit;

  // Candidates: every rank early, and the splits after the largest gaps.
  std::vector<int> splits;
  for (int k = 1; k < p; ++k)
    if (s.slot[s.order[k]] > s.slot[s.order[k - 1]]) splits.push_back(k);
  if (static_cast<int>(splits.size()) > kMaxSplitCandidates) {
    auto gap = [&](int k) { return s.slot[s.order[k]] - s.slot[s.order[k - 1]]; };
    std::partial_sort(splits.begin(), splits.begin() + kMaxSplitCandidates, splits.end(),
                      [&](int x, int y) { return gap(x) != gap(y) ? gap(x) > gap(y) : x < y; });
    splits.resize(kMaxSplitCandidates);
  }
  int k = p;
  double best = simulate(a, p, m, nullptr);
  for (int split : splits) {
    const double c = simulate(a, split, m, nullptr);
    if (c < best || (c == best && split > k)) {
      best = c;
      k = split;
    }
  }

  plan.early = k;
  plan.seq.assign(s.order.begin(), s.order.begin() + k);
  std::sort(plan.seq.begin(), plan.seq.end());
  plan.seq.insert(plan.seq.end(), s.order.begin() + k, s.order.end());
  plan.pos.assign(static_cast<size_t>(p), 0);
  for (int i = 0; i < p; ++i) plan.pos[plan.seq[i]] = i;
  if (k < p) simulate(a, k, m, &plan.waves);
  int64_t round = circulant::group_rounds(k, most_blocks(plan.seq, 0, k, plan.blocks, p));
  for (ArrivalAllgathervPlan::Wave& w : plan.waves) {
    w.round = round;
    w.bulk_round = round + circulant::group_rounds(w.last, most_blocks(plan.seq, w.first, w.last,
                                                                       plan.blocks, p));
    round = w.bulk_round + w.turns;
  }
  return plan;
}

void arrival_allgatherv_schedule(const GeneratorInput& in, ScheduleSink& out) {
  const int p = in.p;
  if (p == 1) return;
  const ArrivalAllgathervPlan plan = arrival_allgatherv_plan(in);
  const std::span<const int> seq(plan.seq);
  std::vector<circulant::GroupOrigin> origins;
  for (int r = out.first_rank(); r < out.last_rank(); ++r) {
    const int v = plan.pos[r];
    if (v < plan.early) {
      origins = group_origins(plan.seq, 0, plan.early, plan.blocks, p);
      circulant::emit_group(seq.first(plan.early), v, origins, 0, true, out);
    }
    for (const ArrivalAllgathervPlan::Wave& w : plan.waves) {
      if (v >= w.last) continue;  // joins in a later wave
      origins = group_origins(plan.seq, w.first, w.last, plan.blocks, p);
      circulant::emit_group(seq.first(w.last), v, origins, w.round, false, out);
      if (v >= w.first) {
        const int i = v - w.first;
        const int h = ArrivalAllgathervPlan::holder(w, plan.early, i);
        out.recv(r, w.bulk_round + i / w.first, plan.seq[h], gathered_before(plan, w.first, p),
                 Combine::copy);
      } else {
        // The wave's ranks this rank holds for: i with holder(i) == v, every w.first-th.
        const int size = w.last - w.first;
        int i = ((v - (w.first - plan.early)) % w.first + w.first) % w.first;
        if (i < size) {
          const BlockSet before = gathered_before(plan, w.first, p);
          for (; i < size; i += w.first)
            out.send(r, w.bulk_round + i / w.first, plan.seq[w.first + i], before);
        }
      }
    }
  }
}

int arrival_allgatherv_late_ranks(const GeneratorInput& in) {
  const ArrivalAllgathervPlan plan = arrival_allgatherv_plan(in);
  return in.p - plan.early;
}

std::string arrival_allgatherv_arrival_key(const GeneratorInput& in) {
  // The model's inputs besides the slots and the block count (already in the cache key).
  const Model m(in);
  auto bits = [](double x) {
    int64_t b;
    static_assert(sizeof b == sizeof x);
    std::memcpy(&b, &x, sizeof b);
    return b;
  };
  return arrival_slots_key(arrival_slots(in, arrival_allgatherv_unit(in)),
                           {bits(m.alpha), bits(m.beta), bits(m.bytes)});
}

// The cost model's view of the plan: the early group's all-gatherv ends its circulant's time
// after the last early arrival; a wave's stage starts when its last rank is there and the
// previous stage is done; everyone finishes with the last wave's broadcast, the last wave's
// ranks and their holders after their message.
double arrival_allgatherv_predict(const GeneratorInput& in) {
  const int p = in.p;
  if (p == 1) return 0;
  const std::vector<double> a = estimate::arrivals_of(in);
  const ArrivalAllgathervPlan plan = arrival_allgatherv_plan(in);
  const Model m(in);
  double t = -HUGE_VAL;
  for (int i = 0; i < plan.early; ++i) t = std::max(t, a[plan.seq[i]]);
  t += m.stage(plan.early, plan.early);
  std::vector<double> finish(static_cast<size_t>(p), t);
  if (!plan.waves.empty()) {
    double end = t;
    for (const ArrivalAllgathervPlan::Wave& w : plan.waves) {
      double start = t;
      for (int i = w.first; i < w.last; ++i) start = std::max(start, a[plan.seq[i]]);
      end = start + m.stage(w.last, w.last - w.first);
      t = end + w.turns * m.message(w.first);
    }
    std::fill(finish.begin(), finish.end(), end);
    const ArrivalAllgathervPlan::Wave& w = plan.waves.back();
    for (int i = 0; i < w.last - w.first; ++i) {
      const double done = end + (i / w.first + 1) * m.message(w.first);
      const int holder = plan.seq[ArrivalAllgathervPlan::holder(w, plan.early, i)];
      finish[plan.seq[w.first + i]] = done;
      finish[holder] = std::max(finish[holder], done);
    }
  }
  return estimate::mean_elapsed(finish, a);
}

// As for the broadcast: every rank forwards every origin's blocks in every round, so all finish
// about the circulant's time after the last arrival.
double circulant_allgatherv_predict(const GeneratorInput& in) {
  const int p = in.p;
  if (p == 1) return 0;
  const Model m(in);
  return estimate::all_finish_after_last(in, m.stage(p, p));
}

}  // namespace papcoll
