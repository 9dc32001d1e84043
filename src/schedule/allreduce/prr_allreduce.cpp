// Pre-reduced ring all-reduce (Proficz, Sec. 4.2, Fig. 7).
//
// Data flow, as in the paper: ranks are placed on the ring in arrival order (ties by rank); the
// number of pre-steps k_i of position i comes from Fig. 7 lines 1-6; segment j starts at position
// sp_j and is reduced over p-1 hops to rp_j = sp_j - 1 (mod p), then copied over p-1 more hops.
// Fig. 7 lines 7-13 as extracted never assign sp_j in the else branch; the evident intent (and the
// only reading that gives every segment a start) is "advance i until i + k_i >= j, then sp_j = i".
//
// Order of transfers (docs/algorithms.md, "PRR as implemented"): the loops of Fig. 7 block on each
// receive in a fixed segment order, which on a real ring stalls early ranks behind the late one.
// Every transfer gets a slot (in units of tau) instead, and the slot is its round, so each rank
// executes in predicted-time order. The slots come from lanes: segment j travels without waiting,
// hop h in slot tau_j + h, so it crosses position x in a slot congruent to (tau_j - sp_j) + x mod
// p; segments with distinct lanes (tau_j - sp_j) mod p never meet on a link. Each segment takes the
// earliest start tau_j at which every hop of its path finds both ends arrived (need_j), on a free
// lane, segments in order of need_j then index. Every rank derives the same lanes in O(p log p)
// from the plan and then only its own ops: 4 per segment at most. With equal arrivals this is the
// ring schedule; in every pattern tested it gives each position the same finishing slot as the
// slot-by-slot simulation of the whole ring it replaces
// (tests/unit/schedule/allreduce/prr_test.cpp).
//
// The arrivals enter only as the plan (prr_plan.hpp): the arrival order and integer slots.
#include <algorithm>
#include <limits>
#include <numeric>

#include "schedule/allreduce/prr_plan.hpp"
#include "schedule/allreduce_generators.hpp"
#include "schedule/estimate.hpp"
#include "schedule/estimate_topology.hpp"

namespace papcoll {

PrrLanes prr_lanes(const PrrPlan& plan, int blocks) {
  const int p = static_cast<int>(plan.order.size());
  PrrLanes l;
  l.start = prr_segment_starts(plan);
  l.tau.assign(static_cast<size_t>(p), -1);
  if (p == 1) return l;
  // need_j = max over hops h = 0..2p-3 of A[(sp_j + h) mod p] - h, where A[y] is the slot from
  // which position y and its successor are both there: a sliding-window maximum of
  // B[y] = A[y mod p] - y over the window [sp_j, sp_j + 2p - 3], whose start never decreases.
  const long hops = 2L * (p - 1);
  std::vector<long> b_of(static_cast<size_t>(3 * p));
  for (int x = 0; x < p; ++x) {  // y = x, x + p, x + 2p (no division on this path: p up to 2^14+)
    const long a = std::max(plan.slot[x], plan.slot[x + 1 < p ? x + 1 : 0]);
    b_of[x] = a - x;
    b_of[x + p] = a - x - p;
    b_of[x + 2 * p] = a - x - 2L * p;
  }
  auto B = [&](long y) { return b_of[static_cast<size_t>(y)]; };
  std::vector<long> need(static_cast<size_t>(p));
  std::vector<long> window(static_cast<size_t>(3 * p));  // indices y with decreasing B[y]
  size_t head = 0, tail = 0;
  long next = 0;
  for (int j = 0; j < p; ++j) {
    const long lo = l.start[j], hi = lo + hops - 1;
    for (; next <= hi; ++next) {
      while (tail > head && B(window[tail - 1]) <= B(next)) --tail;
      window[tail++] = next;
    }
    while (window[head] < lo) ++head;
    need[j] = lo + B(window[head]);
  }
  // Lanes, segments in order of need then index; an empty chunk (B < p) carries nothing and
  // takes no lane. free_lane: union-find over lanes, each pointing at the next free one.
  std::vector<int> segments;
  segments.reserve(static_cast<size_t>(p));
  if (blocks >= p) {
    for (int j = 0; j < p; ++j) segments.push_back(j);
  } else {
    for (int j = 0; j < p; ++j)
      if (static_cast<int64_t>(j + 1) * blocks / p > static_cast<int64_t>(j) * blocks / p)
        segments.push_back(j);
  }
  std::sort(segments.begin(), segments.end(),
            [&](int a, int b) { return need[a] != need[b] ? need[a] < need[b] : a < b; });
  std::vector<int> up(static_cast<size_t>(p));
  std::iota(up.begin(), up.end(), 0);
  auto free_lane = [&](int lane) {
    int root = lane;
    while (up[root] != root) root = up[root];
    while (up[lane] != root) lane = std::exchange(up[lane], root);
    return root;
  };
  for (int j : segments) {
    long wanted_long = (need[j] - l.start[j]) % p;
    if (wanted_long < 0) wanted_long += p;
    const int wanted = static_cast<int>(wanted_long);
    const int lane = free_lane(wanted);
    // Lane taken: point past it (never all taken before the last).
    up[lane] = free_lane(lane + 1 < p ? lane + 1 : 0);
    l.tau[j] = need[j] + (lane >= wanted ? lane - wanted : lane - wanted + p);
  }
  return l;
}

void prr_allreduce_schedule(const GeneratorInput& in, ScheduleSink& out) {
  const int p = in.p;
  if (p == 1) return;
  const PrrPlan plan = prr_plan(in);
  const PrrLanes lanes = prr_lanes(plan, in.blocks);
  std::vector<int> position(static_cast<size_t>(p));
  for (int x = 0; x < p; ++x) position[plan.order[x]] = x;
  // A position sends at most one segment per slot and receives at most one (the lanes), so its
  // ops are laid out by slot in two arrays (-1: none) and emitted in slot order.
  long first_slot = 0, last_slot = 0;
  for (long t : lanes.tau)
    if (t >= 0) last_slot = std::max(last_slot, t + 2L * (p - 1));
  std::vector<int> chunk_first(static_cast<size_t>(p) + 1);  // chunk j: [first[j], first[j+1])
  for (int j = 0; j <= p; ++j)
    chunk_first[j] = static_cast<int>(static_cast<int64_t>(j) * in.blocks / p);
  auto chunk = [&](int j) { return BlockSet::range(chunk_first[j], chunk_first[j + 1]); };
  std::vector<int> recv_at, send_at;
  for (int r = out.first_rank(); r < out.last_rank(); ++r) {
    const int x = position[r];
    const int next = plan.order[x + 1 < p ? x + 1 : 0], prev = plan.order[x > 0 ? x - 1 : p - 1];
    recv_at.assign(static_cast<size_t>(last_slot - first_slot + 1), -1);
    send_at.assign(recv_at.size(), -1);
    size_t ops = 0;
    for (int j = 0; j < p; ++j) {
      if (lanes.tau[j] < 0) continue;  // an empty chunk
      // Hops from the start to x (both positions in [0, p): no division).
      const int here = x >= lanes.start[j] ? x - lanes.start[j] : x - lanes.start[j] + p;
      // Reduce: hop h leaves position sp_j + h for h = 0..p-2; copy: hop p-1+d leaves sp_j - 1 + d
      // for d = 0..p-2. Position x receives the hop that left x - 1 and sends the one leaving x.
      // Receives are stored as 2j (reduce) or 2j + 1 (copy).
      const int in_reduce = here > 0 ? here - 1 : p - 1, in_copy = here;
      const int out_reduce = here, out_copy = here + 1 < p ? here + 1 : 0;
      const long base = lanes.tau[j] - first_slot;
      if (in_reduce <= p - 2) recv_at[base + in_reduce] = 2 * j, ++ops;
      if (out_reduce <= p - 2) send_at[base + out_reduce] = j, ++ops;
      if (in_copy <= p - 2) recv_at[base + p - 1 + in_copy] = 2 * j + 1, ++ops;
      if (out_copy <= p - 2) send_at[base + p - 1 + out_copy] = j, ++ops;
    }
    out.reserve(r, ops);
    for (size_t t = 0; t < recv_at.size(); ++t) {
      const int64_t round = first_slot + static_cast<int64_t>(t);
      if (const int k = recv_at[t]; k >= 0)
        out.recv(r, round, prev, chunk(k / 2), k % 2 == 0 ? Combine::reduce : Combine::copy);
      if (const int j = send_at[t]; j >= 0) out.send(r, round, next, chunk(j));
    }
  }
}

std::string prr_arrival_key(const GeneratorInput& in) { return prr_plan(in).key(); }

// The lanes give every transfer a slot: segment j starts in slot tau_j, after the earliest arrival,
// and makes its p - 1 reducing hops of tau (block_round_time) each, then copying hops of a message
// only (alpha + beta b, no reduction). A position finishes with its last transfer, which for
// segment j depends only on d = (x - sp_j) mod p: the copy send after d + 2 copying hops
// (d <= p - 3), the copy receive that ends the segment after p - 1 (d = p - 2), or the copy send
// right after the reduction ended there (d = p - 1). So with G[s] = max over segments starting at
// s of tau_j tau - s c (c: a copying hop), a position takes the maximum over starts s <= x of
// G[s] + (x + 2) c and over s >= x + 3 of G[s] + (x + 2 + p) c, plus the two starts of the special
// cases: O(p) after the lanes.
double prr_allreduce_predict(const GeneratorInput& in) {
  const int p = in.p;
  if (p == 1) return 0;
  const PrrPlan plan = prr_plan(in);
  const PrrLanes lanes = prr_lanes(plan, in.blocks);
  const std::vector<double> a = estimate::arrivals_of(in);
  const double first = *std::min_element(a.begin(), a.end());
  const double tau = prr_slot_time(in);
  const double copy = in.cost.alpha +
                      in.cost.beta * estimate::blocks_bytes(in, std::max(1.0, 1.0 * in.blocks / p));
  // Slots are capped (prr_plan.hpp), and the last arrival falls inside its slot: what starts from
  // the last rank's slot on happens that much later than the slot says.
  const long cap = plan.slot.back();
  double shift = 0;
  for (int x = 0; x < p; ++x)
    if (plan.slot[x] == cap)
      shift = std::max(shift, a[plan.order[x]] - (first + static_cast<double>(cap) * tau));
  const double kNone = -std::numeric_limits<double>::infinity();
  std::vector<double> top(static_cast<size_t>(p), kNone);  // start time of the last segment from s
  for (int j = 0; j < p; ++j)
    if (lanes.tau[j] >= 0) {
      const double t =
          static_cast<double>(lanes.tau[j]) * tau +
          (lanes.tau[j] + p - 1 >= cap ? shift : 0);  // its reduction ends after the cap
      top[lanes.start[j]] = std::max(top[lanes.start[j]], t);
    }
  auto g = [&](int s) { return top[s] == kNone ? kNone : top[s] - s * copy; };
  std::vector<double> prefix(static_cast<size_t>(p)), suffix(static_cast<size_t>(p) + 1, kNone);
  for (int s = 0; s < p; ++s) prefix[s] = std::max(s > 0 ? prefix[s - 1] : kNone, g(s));
  for (int s = p - 1; s >= 0; --s) suffix[s] = std::max(suffix[s + 1], g(s));
  auto range_max = [&](int lo, int hi) {
    double m = kNone;
    for (int s = lo; s <= hi; ++s) m = std::max(m, g(s));
    return m;
  };
  const double reduction = (p - 1) * tau;  // a segment's reducing hops
  std::vector<double> finish(static_cast<size_t>(p));
  for (int x = 0; x < p; ++x) {
    // Starts s <= x with d = x - s <= p - 3 (all of them but for the last two positions).
    double last = (x <= p - 3 ? prefix[x] : range_max(x - p + 3, x)) + (x + 2) * copy;
    if (x + 3 <= p - 1) last = std::max(last, suffix[x + 3] + (x + 2 + p) * copy);
    if (const double t = top[(x + 1) % p]; t != kNone) last = std::max(last, t + copy);
    if (const double t = top[(x + 2) % p]; t != kNone && p > 2)
      last = std::max(last, t + (p - 1) * copy);
    finish[plan.order[x]] = first + reduction + last;
  }
  return estimate::mean_elapsed(finish, a);
}

// On nodes of several ranks (AlgorithmInfo::costed_on_nodes): the flat estimate paces every hop
// at the network's tau, but in PRR's ring in arrival order most hops join two ranks of one node
// (the early ranks keep rank order) and take the loopback's time, and the executor runs a hop as
// soon as its data and both ends are there, not in its slot. So the hops cost one by one
// (estimate::ring_hop_times along the arrival order: loopback inside a node, the network between
// nodes, shared by the ring's hops that leave one node), and what bounds the finish is the work
// that waits for late ranks: for a suffix of the arrival order (positions q..p-1, all there from
// T_q on), the hops of each segment from its first visit of a position in it on cannot start
// before T_q. Every rank then has its result after T_q plus the longer of the slowest such
// segment's remaining path and the busiest hop's queue of remaining messages (a hop carries one
// segment at a time). Taken over the last arrival's group and a few suffixes spread over the
// order (the first: the whole ring, with everyone on time the ring's (p - 1) reducing and
// (p - 1) copying messages on its slowest hop); O(p) each. Only for patterns of one delay
// (below); others are not costed (+inf).
double prr_allreduce_nodes_predict(const GeneratorInput& in) {
  const int p = in.p;
  const estimate::NodeLinks links(in);
  if (p < 3 || links.one_rank_per_node() || in.blocks < p) return prr_allreduce_predict(in);
  const PrrPlan plan = prr_plan(in);
  const std::vector<int> start = prr_segment_starts(plan);
  const std::vector<double> a = estimate::arrivals_of(in);
  const double bytes = estimate::blocks_bytes(in, 1.0 * in.blocks / p);
  const std::vector<double> hop = estimate::ring_hop_times(in, plan.order, bytes);
  const double reduce = in.cost.gamma * bytes;
  // Hop h of the segment starting at s leaves position (s + h) mod p, reducing for h <= p - 2 and
  // copying after: over linear indices s + h in [0, 3p), prefix sums of both costs and difference
  // arrays of the remaining messages per hop.
  const size_t n = static_cast<size_t>(3 * p);
  std::vector<double> sum_r(n + 1, 0.0), sum_c(n + 1, 0.0);
  for (size_t i = 0; i < n; ++i) {
    sum_c[i + 1] = sum_c[i] + hop[i % p];
    sum_r[i + 1] = sum_r[i] + hop[i % p] + reduce;
  }
  std::vector<long> more_r(n + 1), more_c(n + 1), count_r(static_cast<size_t>(p)),
      count_c(static_cast<size_t>(p));
  auto bound = [&](int q, double t_q) {  // positions q..p-1 there from t_q on
    std::fill(more_r.begin(), more_r.end(), 0);
    std::fill(more_c.begin(), more_c.end(), 0);
    double path = 0;              // the slowest remaining segment's hops
    const long end = 2L * p - 3;  // a segment's last hop
    for (int j = 0; j < p; ++j) {
      const long s = start[j];
      // The first hop that reaches a position from q on (the one into q), or all of them.
      const long h0 = s >= q ? 0 : q - 1 - s;
      double t = 0;
      if (h0 <= p - 2) {
        t += sum_r[s + p - 1] - sum_r[s + h0];
        ++more_r[s + h0], --more_r[s + p - 1];
      }
      const long c0 = std::max<long>(h0, p - 1);
      t += sum_c[s + end + 1] - sum_c[s + c0];
      ++more_c[s + c0], --more_c[s + end + 1];
      path = std::max(path, t);
    }
    std::fill(count_r.begin(), count_r.end(), 0);
    std::fill(count_c.begin(), count_c.end(), 0);
    long run_r = 0, run_c = 0;
    for (size_t i = 0; i < n; ++i) {
      run_r += more_r[i], run_c += more_c[i];
      count_r[i % p] += run_r, count_c[i % p] += run_c;
    }
    double queue = 0;  // the busiest hop's remaining messages
    for (int x = 0; x < p; ++x)
      queue = std::max(queue, count_r[x] * (hop[x] + reduce) + count_c[x] * hop[x]);
    return t_q + std::max(path, queue);
  };
  // The last arrivals: those within a slot of the last one (the plan's slots are capped, so
  // read the arrivals themselves).
  const double last = *std::max_element(a.begin(), a.end());
  const double tau = prr_slot_time(in);
  int last_group = p - 1;
  while (last_group > 0 && a[plan.order[last_group - 1]] >= last - tau) --last_group;
  // Only where every rank is on time or late by one delay (the early ranks in the first slot):
  // with arrivals spread over many slots, each rank's transfers run in slot order, and a hop
  // slowed by a shared link holds up the rank's later slots, a cascade these bounds miss (the
  // cost model took up to 7 times as long on random layouts). There the row is not costed.
  if (last_group > 0 && plan.slot[last_group - 1] != plan.slot.front())
    return std::numeric_limits<double>::infinity();
  double done = bound(last_group, last);
  constexpr int kSuffixes = 16;
  for (int k = 0; k < kSuffixes; ++k) {
    const int q = static_cast<int>(static_cast<int64_t>(k) * p / kSuffixes);
    if (q < last_group) done = std::max(done, bound(q, a[plan.order[q]]));
  }
  const std::vector<double> finish(static_cast<size_t>(p), done);
  return estimate::mean_elapsed(finish, a);
}

}  // namespace papcoll
