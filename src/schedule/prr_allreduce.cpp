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
//
// The arrivals enter only as the plan (prr_plan.hpp): the arrival order and integer slots.
#include <algorithm>

#include "schedule/allreduce_generators.hpp"
#include "schedule/prr_plan.hpp"

namespace papcoll {

namespace {

struct Segment {
  BlockSet blocks;
  int holder = 0;   // position holding the partial (or final) result
  int hops = 0;     // transfers done, 0 .. 2(p-1)
  long ready = 0;   // first slot in which the holder may forward it
};

}  // namespace

void prr_allreduce_schedule(const GeneratorInput& in, ScheduleSink& out) {
  const int p = in.p;
  if (p == 1) return;
  const PrrPlan plan = prr_plan(in);
  const std::vector<int>& order = plan.order;
  const std::vector<long>& slot = plan.slot;
  const std::vector<int> sp = prr_segment_starts(plan);

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
      out.transfer(t, order[from], order[to], s.blocks,
                   s.hops < p - 1 ? Combine::reduce : Combine::copy);
      s.holder = to;
      s.ready = t + 1;
      if (++s.hops == total_hops) ++done;
    }
  }
}

std::string prr_arrival_key(const GeneratorInput& in) { return prr_plan(in).key(); }

}  // namespace papcoll
