// Pre-reduced ring all-reduce (Proficz, Sec. 4.2, Fig. 7).
//
// Data flow, as in the paper: ranks are placed on the ring in arrival order (ties by rank); the
// number of pre-steps k_i of position i comes from Fig. 7 lines 1-6; segment j starts at position
// sp_j and is reduced over p-1 hops to rp_j = sp_j - 1 (mod p), then copied over p-1 more hops.
// Fig. 7 lines 7-13 as extracted never assign sp_j in the else branch; the evident intent (and the
// only reading that gives every segment a start) is "advance i until i + k_i >= j, then sp_j = i".
//
// Order of transfers: the loops of Fig. 7 are blocking per segment, which on a real ring would
// stall early ranks behind the late one. We instead give every transfer the slot (in units of tau)
// at which it can first happen under the predicted arrivals: each position forwards at most one
// segment per slot to its successor, preferring the segment with the most hops left, then the
// lowest index. The slot is the transfer's round, so every rank executes in predicted-time order;
// with equal arrivals this is exactly the ring schedule.
#include <algorithm>
#include <cmath>
#include <limits>

#include "schedule/allreduce_generators.hpp"
#include "schedule/builder.hpp"

namespace papcoll {

namespace {

struct Segment {
  std::vector<int> blocks;
  int holder = 0;   // position holding the partial (or final) result
  int hops = 0;     // transfers done, 0 .. 2(p-1)
  long ready = 0;   // first slot in which the holder may forward it
};

}  // namespace

Schedule prr_allreduce_schedule(const GeneratorInput& in) {
  const int p = in.p;
  ScheduleBuilder b(Collective::allreduce, "prr", p, in.blocks);
  if (p == 1) return std::move(b).build();

  const std::vector<int> order = arrival_order(p, in.arrivals);
  const double tau = block_round_time(in);
  std::vector<double> a(static_cast<size_t>(p), 0.0);
  if (static_cast<int>(in.arrivals.size()) == p)
    for (int i = 0; i < p; ++i) a[i] = in.arrivals[order[i]];

  // Fig. 7 lines 1-6: pre-steps per position.
  std::vector<int> k(static_cast<size_t>(p), 0);
  for (int i = p - 2; i >= 0; --i)
    k[i] = (a[p - 1] - a[i + 1] >= (k[i + 1] + 1) * tau) ? k[i + 1] + 1 : k[i + 1];
  // Fig. 7 lines 7-13 (fixed, see above): start position of each segment.
  std::vector<int> sp(static_cast<size_t>(p), 0);
  for (int j = 0, i = 0; j < p; ++j) {
    while (i + k[i] < j) ++i;
    sp[j] = i;
  }

  // Arrival slots relative to the earliest rank. Slots past what the schedule can use are capped
  // so a huge delay cannot make the simulation long.
  const long cap = 4L * p + 8;
  std::vector<long> slot(static_cast<size_t>(p), 0);
  for (int i = 0; i < p; ++i) {
    const double s = std::floor((a[i] - a[0]) / tau + 1e-9);
    slot[i] = std::isfinite(s) ? std::clamp<long>(static_cast<long>(std::min(s, 1e15)), 0, cap)
                               : cap;
  }

  std::vector<Segment> segs;
  for (int j = 0; j < p; ++j) {
    Segment s;
    s.blocks = chunk_blocks(in.blocks, p, j);
    if (s.blocks.empty()) continue;
    s.holder = sp[j];
    s.ready = slot[sp[j]];
    segs.push_back(std::move(s));
  }
  const int total_hops = 2 * (p - 1);
  size_t done = 0;
  for (long t = 0; done < segs.size(); ++t) {
    std::vector<int> pick(static_cast<size_t>(p), -1);
    for (size_t j = 0; j < segs.size(); ++j) {
      const Segment& s = segs[j];
      if (s.hops == total_hops || s.ready > t) continue;
      const int from = s.holder, to = (from + 1) % p;
      if (slot[from] > t || slot[to] > t) continue;
      const int cur = pick[from];
      if (cur < 0 || segs[cur].hops > s.hops) pick[from] = static_cast<int>(j);
    }
    for (int from = 0; from < p; ++from) {
      if (pick[from] < 0) continue;
      Segment& s = segs[pick[from]];
      const int to = (from + 1) % p;
      b.transfer(static_cast<int>(t), order[from], order[to], s.blocks,
                 s.hops < p - 1 ? Combine::reduce : Combine::copy);
      s.holder = to;
      s.ready = t + 1;
      if (++s.hops == total_hops) ++done;
    }
  }
  return std::move(b).build();
}

}  // namespace papcoll
