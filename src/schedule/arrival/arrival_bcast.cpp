// Arrival-aware broadcast (docs/circulant.md, "Arrival-aware broadcast and
// all-gatherv"). A late rank of a broadcast only has to receive: nobody needs to wait for it. So,
// from the agreed arrival pattern:
//  - the early ranks (a prefix of the arrival order that holds the root) run Träff's round-optimal
//    circulant broadcast among themselves (circulant_group.hpp), n - 1 + ceil(log2 k) rounds;
//  - each late rank, in arrival order, receives the whole buffer in one message from a rank that
//    already holds it: an early rank once the circulant is done, or a late rank served before.
//    Of the holders whose send port is free when the late rank comes, the one that became free
//    last (a late rank just served, rather than an early rank idle since the circulant ended:
//    the server's wait is the cost of a rendezvous message); if none is free, the first to be.
//    Ranks arriving together get distinct servers, so no sender carries more than its share
//    (Patarasuk and Yuan's "serve each process as it arrives", IPDPS 2008, with the round-optimal
//    schedule for the early group).
// The early set is chosen by the Hockney model in slot units (one circulant round, arrival_slots):
// including the ranks up to position k - 1 of the arrival order makes all k wait for the last of
// them and costs k x (its slot + the circulant's rounds among k); every rank left out waits for
// the early group's end if it comes before it, then one whole-buffer message. The k with the
// least total (ties: the larger k), among the positions where the slot grows, and never leaving
// out a rank that comes no later than the root (everyone waits for the root anyway). With no
// late rank this is exactly the circulant broadcast (the same virtual order and rounds).
#include "schedule/arrival/arrival_bcast.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <iterator>
#include <set>
#include <utility>

#include "schedule/arrival/arrival_slots.hpp"
#include "schedule/bcast_generators.hpp"
#include "schedule/circulant/circulant_estimate.hpp"
#include "schedule/circulant/circulant_group.hpp"
#include "schedule/estimate.hpp"

namespace papcoll {

double arrival_bcast_unit(const GeneratorInput& in) {
  const int n = std::max(1, in.blocks);
  const double u = in.cost.alpha + in.cost.beta * in.bytes / n;
  return std::isfinite(u) && u > 1e-12 ? u : 1e-12;
}

int64_t arrival_bcast_whole_slots(const GeneratorInput& in) {
  const double w = (in.cost.alpha + in.cost.beta * in.bytes) / arrival_bcast_unit(in);
  const double n = std::max(1, in.blocks);
  return std::isfinite(w) ? std::clamp<int64_t>(std::llround(w), 1, static_cast<int64_t>(n)) : 1;
}

namespace {

// Number k of early ranks: the first k of s.order (see the file comment).
int early_count(const ArrivalSlots& s, int root, int n, int64_t whole) {
  const int p = static_cast<int>(s.order.size());
  std::vector<int64_t> a(static_cast<size_t>(p)), prefix(static_cast<size_t>(p) + 1, 0);
  int root_pos = 0;
  for (int i = 0; i < p; ++i) {
    a[i] = s.slot[s.order[i]];
    prefix[i + 1] = prefix[i] + a[i];
    if (s.order[i] == root) root_pos = i;
  }
  auto cost = [&](int k) {
    const int64_t end = a[k - 1] + circulant::group_rounds(k, n);
    const int64_t early = k * end - prefix[k];
    // Late ranks arriving before `end` wait for it.
    const int waiting = static_cast<int>(std::lower_bound(a.begin() + k, a.end(), end) - a.begin());
    return early + (p - k) * whole + (waiting - k) * end - (prefix[waiting] - prefix[k]);
  };
  int best_k = p;
  int64_t best = cost(p);
  for (int k = p - 1; k > root_pos; --k) {
    if (a[k] == a[k - 1]) continue;  // k must split the order where the slot grows
    const int64_t c = cost(k);
    if (c < best) {
      best = c;
      best_k = k;
    }
  }
  return best_k;
}

ArrivalBcastPlan make_plan(const GeneratorInput& in) {
  const int p = in.p;
  const int root = bcast_root(in);
  ArrivalBcastPlan plan;
  plan.blocks = std::max(1, in.blocks);
  const ArrivalSlots s = arrival_slots(in, arrival_bcast_unit(in));
  const int64_t whole = arrival_bcast_whole_slots(in);
  const int k = early_count(s, root, plan.blocks, whole);

  plan.virt.assign(static_cast<size_t>(p), -1);
  for (int i = 0; i < k; ++i) plan.virt[s.order[i]] = 0;
  for (int i = 0; i < p; ++i) {
    const int r = (root + i) % p;
    if (plan.virt[r] < 0) continue;
    plan.virt[r] = static_cast<int>(plan.members.size());
    plan.members.push_back(r);
  }
  plan.first_serve_round = circulant::group_rounds(k, plan.blocks);
  if (k == p) return plan;

  // Holders as (free from, preference): when their send port is free, in slots; among holders
  // free at the same time the smallest preference serves. Early ranks in virtual order, the root
  // last: its sends are not paced by receives, so the executor posts them all at once, and a
  // late rank's message would share the root's link with the whole circulant (on gige-48, 4 MiB:
  // 57 ms instead of 46); late ranks after them, in arrival order. The early ranks that have not
  // served yet are all free from `end`: only the first of them is a candidate, so the set holds
  // only holders that served or were served (O(late log late)).
  const int64_t end = s.slot[s.order[k - 1]] + plan.first_serve_round;
  std::vector<int> by_preference(plan.members.begin() + 1, plan.members.end());
  by_preference.push_back(root);
  using Holder = std::pair<int64_t, int>;
  std::set<Holder> used;
  int unused = 0;  // preference of the first early rank that has not served
  plan.serves.reserve(static_cast<size_t>(p - k));
  for (int i = k; i < p; ++i) {
    const int late = s.order[i];
    const int64_t arrival = s.slot[late];
    const bool early_left = unused < k;
    const Holder early{end, unused};
    // Rule 1: of the holders free by the arrival, the one free the latest; rule 2, if none is:
    // the first to be free. Ties: the smaller preference.
    std::set<Holder>::iterator it = used.upper_bound({arrival, INT_MAX});
    bool take_early;
    if (it != used.begin()) {
      it = used.lower_bound({std::prev(it)->first, INT_MIN});
      take_early = early_left && end <= arrival &&
                   (end > it->first || (end == it->first && unused < it->second));
    } else if (early_left && end <= arrival) {
      take_early = true;
    } else {
      it = used.begin();
      take_early = early_left && (it == used.end() || early < *it);
    }
    const Holder chosen = take_early ? early : *it;
    if (take_early)
      ++unused;
    else
      used.erase(it);
    const int64_t done = std::max(arrival, chosen.first) + whole;
    used.insert({done, chosen.second});
    used.insert({done, static_cast<int>(by_preference.size())});
    plan.serves.push_back({by_preference[chosen.second], late});
    by_preference.push_back(late);
  }
  return plan;
}

}  // namespace

// The last plan of this thread: a call asks for it for auto's check, its estimate and the
// schedule, and a repeated pattern at every call.
ArrivalBcastPlan arrival_bcast_plan(const GeneratorInput& in) {
  struct Last {
    GeneratorInput in;
    ArrivalBcastPlan plan;
    bool valid = false;
  };
  thread_local Last last;
  const GeneratorInput& l = last.in;
  if (last.valid && l.p == in.p && bcast_root(l) == bcast_root(in) && l.blocks == in.blocks &&
      l.bytes == in.bytes && l.cost.alpha == in.cost.alpha && l.cost.beta == in.cost.beta &&
      l.arrivals == in.arrivals)
    return last.plan;
  ArrivalBcastPlan plan = make_plan(in);
  last.in.p = in.p;
  last.in.root = in.root;
  last.in.blocks = in.blocks;
  last.in.bytes = in.bytes;
  last.in.cost = in.cost;
  last.in.arrivals = in.arrivals;
  last.plan = plan;
  last.valid = true;
  return plan;
}

void arrival_bcast_schedule(const GeneratorInput& in, ScheduleSink& out) {
  if (in.p == 1) return;
  const ArrivalBcastPlan plan = arrival_bcast_plan(in);
  const int n = plan.blocks;
  const circulant::GroupOrigin root{0, {0, n}};
  const BlockSet all = BlockSet::range(0, n);
  // The early ranks' circulant paced, as the circulant broadcast's every round (its members wait
  // for the last of them); the late ranks' messages not: their receivers come when they come.
  out.set_paced_until(plan.first_serve_round, paced_send_bytes(in.cost));
  for (int r = out.first_rank(); r < out.last_rank(); ++r) {
    if (plan.virt[r] >= 0)
      circulant::emit_group(plan.members, plan.virt[r], {&root, 1}, 0, true, out);
    for (size_t i = 0; i < plan.serves.size(); ++i) {
      const ArrivalBcastPlan::Serve& s = plan.serves[i];
      const int64_t round = plan.first_serve_round + static_cast<int64_t>(i);
      if (s.from == r) out.send(r, round, s.to, all);
      if (s.to == r) out.recv(r, round, s.from, all, Combine::copy);
    }
  }
}

int arrival_bcast_late_ranks(const GeneratorInput& in) {
  return static_cast<int>(arrival_bcast_plan(in).serves.size());
}

std::string arrival_bcast_arrival_key(const GeneratorInput& in) {
  return arrival_slots_key(arrival_slots(in, arrival_bcast_unit(in)),
                           {arrival_bcast_whole_slots(in)});
}

namespace {

// Beyond this many rounds the estimate uses the formula below instead of the round-by-round
// evaluation (a caller's huge block count; with n >= log2 p blocks every rank depends on every
// other anyway).
constexpr int kMaxEvaluatedRounds = 1 << 12;

// Finish times of the circulant broadcast among `members` (virtual order) under arrivals a.
std::vector<double> group_finish(const std::vector<int>& members, int n,
                                 const std::vector<double>& a, const GeneratorInput& in) {
  const int g = static_cast<int>(members.size());
  std::vector<double> av(static_cast<size_t>(g));
  for (int v = 0; v < g; ++v) av[v] = a[members[v]];
  const double message = in.cost.alpha + in.cost.beta * in.bytes / n;
  if (circulant::group_rounds(g, n) <= kMaxEvaluatedRounds)
    return circulant::bcast_finish_times(g, n, av, message);
  // Every rank forwards in every round: all finish the circulant's time after the last arrival.
  const double end = *std::max_element(av.begin(), av.end()) +
                     circulant::group_rounds(g, n) * message;
  return std::vector<double>(static_cast<size_t>(g), end);
}

}  // namespace

// The cost model's view of the plan: the early ranks' circulant broadcast evaluated round by
// round (circulant_estimate.hpp); a late rank's message starts when both it and its server are
// there (the server's steps and sends done) and takes alpha + beta bytes; the server finishes no
// earlier than its last send.
double arrival_bcast_predict(const GeneratorInput& in) {
  const int p = in.p;
  if (p == 1) return 0;
  const std::vector<double> a = estimate::arrivals_of(in);
  const ArrivalBcastPlan plan = arrival_bcast_plan(in);
  const std::vector<double> early = group_finish(plan.members, plan.blocks, a, in);
  std::vector<double> finish(a);
  for (size_t v = 0; v < plan.members.size(); ++v) finish[plan.members[v]] = early[v];
  std::vector<double> free_at(finish);
  const double whole = in.cost.alpha + in.cost.beta * in.bytes;
  for (const ArrivalBcastPlan::Serve& s : plan.serves) {
    const double done = std::max(a[s.to], free_at[s.from]) + whole;
    free_at[s.from] = free_at[s.to] = done;
    finish[s.from] = std::max(finish[s.from], done);
    finish[s.to] = done;
  }
  return estimate::mean_elapsed(finish, a);
}

// The same evaluation of the circulant broadcast on every rank: with few blocks a late rank stalls
// the ranks below it in each block's tree, with many blocks every rank.
double circulant_bcast_predict(const GeneratorInput& in) {
  const int p = in.p;
  if (p == 1) return 0;
  const std::vector<double> a = estimate::arrivals_of(in);
  std::vector<int> members(static_cast<size_t>(p));
  for (int v = 0; v < p; ++v) members[v] = (v + bcast_root(in)) % p;
  const std::vector<double> f = group_finish(members, std::max(1, in.blocks), a, in);
  std::vector<double> finish(static_cast<size_t>(p));
  for (int v = 0; v < p; ++v) finish[members[v]] = f[v];
  return estimate::mean_elapsed(finish, a);
}

}  // namespace papcoll
