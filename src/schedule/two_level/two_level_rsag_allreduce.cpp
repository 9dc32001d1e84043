// Two-level all-reduce by pieces (two_level.hpp; docs/algorithms.md, "two-level-rsag"): the
// hierarchical reduce-scatter / all-gather of SMP-aware libraries (MVAPICH2's and SMPI's
// smp_rsag, UCC's hierarchical all-reduce), arrival-aware among the nodes. Where two-level sends
// every node's whole vector through one leader, here every rank of a node carries a piece:
//
//  A. Inside every node a direct reduce-scatter into c pieces (c = the smallest node's rank
//     count): every rank hands piece j of its vector to the node's owner of piece j, its j-th rank
//     in arrival order, all at once (round 0) where the nodes are of equal size, else c senders a
//     round (an owner's scratch about one vector). Over shared memory these copies run side by
//     side.
//  B. Among the nodes, one all-reduce per piece, over the owners of that piece (one per node), by
//     the all-reduce row the estimate favours on the nodes' ready times (leaders_row: relay-fold
//     when a node is late, Rabenseifner balanced), each piece's run seeing a c-th of every node's
//     link (the c runs share it). Not paced, though relay-fold paces on its own: the c runs share
//     every node's link by design, so one run's pacing would not keep a link to one round of
//     messages, and on a c-th of the link its threshold (alpha / (c beta)) made nearly every
//     message synchronous, each hop waiting on its receiver (docs/algorithms.md, "By pieces").
//  C. Inside every node each owner hands its finished piece to every other rank of the node.
//
// Each rank of a node moves n / c bytes through the network in each direction, not the leader n,
// and the links inside a node carry n per rank once each way, spread over all of them.
#include <algorithm>
#include <limits>

#include "schedule/allreduce_generators.hpp"
#include "schedule/estimate.hpp"
#include "schedule/plan_memo.hpp"
#include "schedule/schedule_sink.hpp"
#include "schedule/two_level/two_level.hpp"
#include "schedule/two_level/two_level_estimate.hpp"

namespace papcoll {
namespace {

constexpr double kRsagLinkRatio = 10;

struct RsagPlan {
  TwoLevelPlan nodes;
  int pieces = 1;                         // c
  std::vector<std::vector<int>> members;  // per node: its ranks in arrival order, owners first
  std::vector<double> ready;              // per node: when its owners hold the node's pieces
  GeneratorInput piece;                   // the input of one piece's all-reduce among the nodes
  const AlgorithmInfo* row = nullptr;
};

// Node k's ranks in arrival order (ties by rank), as two_level_plan orders them with the leader
// (its latest rank) last.
std::vector<int> arrival_members(const TwoLevelPlan& plan, int k) {
  std::vector<int> m = plan.others[k];
  m.push_back(plan.leader[k]);
  return m;
}

// A direct exchange inside one node in one step, as the cost model runs it (verify/cost_model.hpp:
// one port each way per rank; the ranks' k-th sends side by side, in rank order): member i
// (members in arrival order, starting its step at start[i]) sends to every member the exchange
// gives it, in the order the generator lists them, each message `message` long; receives are
// reduced (`reduce` each, one after another) or copied. Returns when each member's step ends
// (its receives done) and, in `sent`, when its last send ends.
struct Exchange {
  std::vector<double> step_end, sent;
  // Scratch reused from node to node (the estimate runs one exchange per node).
  std::vector<double> out, in, done;
  std::vector<int> by_rank;
  std::vector<double> cursor;  // the members' step starts in the current round
};
// The reduce-scatter's shifts t = 1 .. size - 1 (member i to member i + t) in rounds of c: an
// owner then takes at most c pieces, about one vector, into scratch per step (a node larger than
// the smallest one has more senders than pieces). The all-gather is one round.
int scatter_round(int t, int pieces) { return (t - 1) / pieces; }
int scatter_rounds(int size, int pieces) {
  return size > 1 ? scatter_round(size - 1, pieces) + 1 : 0;
}

// Member i's target in shift t, -1 if none: a reduce-scatter hands piece j to owner j; in the
// all-gather owner i hands its piece to every member.
int shift_target(int i, int t, int size, int pieces, bool scatter) {
  const int j = (i + t) % size;
  if (scatter) return j < pieces ? j : -1;
  return i < pieces ? j : -1;
}

// One message of an exchange inside a node, a piece of `bytes` (`c`: intra_cost): its share of the
// exchange as it ran on this machine where it was timed (CostParams::exchange_alpha and
// exchange_beta, executor/node_exchange.hpp: the step overhead and the copies' memory work in
// it), else one message over the links inside a node, which the exchange takes one after another.
double exchange_message(const CostParams& c, double bytes) {
  if (c.exchange_measured()) return c.exchange_alpha + c.exchange_beta * bytes;
  return c.alpha + c.beta * bytes;
}

void node_exchange(const std::vector<int>& members, const std::vector<double>& start, int pieces,
                   bool scatter, double message, double reduce, Exchange& e) {
  const int size = static_cast<int>(members.size());
  const size_t n = static_cast<size_t>(size);
  if (pieces == size &&
      std::all_of(start.begin(), start.end(), [&](double t) { return t == start.front(); })) {
    // Everyone there at once, every member an owner (the common case): one round, slot t ends at
    // start + (t + 1) message everywhere, and a member's t-th receive lands then; the reduces
    // follow.
    const double last = start.front() + (size - 1) * message;
    const double reduced =
        scatter ? std::max(last + reduce, start.front() + message + (size - 1) * reduce) : last;
    e.step_end.assign(n, size > 1 ? reduced : start.front());
    e.sent.assign(n, size > 1 ? last : start.front());
    return;
  }
  e.by_rank.resize(n);
  for (int i = 0; i < size; ++i) e.by_rank[i] = i;
  std::sort(e.by_rank.begin(), e.by_rank.end(),
            [&](int x, int y) { return members[x] < members[y]; });
  e.out = start;
  e.in = start;
  e.step_end = start;
  e.sent = start;
  e.done.assign(n * n, 0.0);  // done[i * size + j]: when i's message to j ends
  // Round by round: a member's step starts when its previous one ended (its receives done).
  const int per_round = scatter ? pieces : size;
  for (int t0 = 1; t0 < size; t0 += per_round) {
    const int t1 = std::min(size, t0 + per_round);
    e.cursor.assign(e.step_end.begin(), e.step_end.end());
    for (int t = t0; t < t1; ++t)  // slot by slot: every member's next send, in rank order
      for (int i : e.by_rank) {
        const int j = shift_target(i, t, size, pieces, scatter);
        if (j < 0) continue;
        const double end = std::max({e.cursor[i], e.out[i], e.cursor[j], e.in[j]}) + message;
        e.out[i] = e.in[j] = e.done[static_cast<size_t>(i) * n + j] = end;
        e.sent[i] = std::max(e.sent[i], end);
      }
    // Each member's receives in the generator's order: from the member t before it.
    for (int j = 0; j < size; ++j) {
      double cpu = e.cursor[j];
      for (int t = t0; t < t1; ++t) {
        const int i = (j - t + size) % size;
        if (shift_target(i, t, size, pieces, scatter) != j) continue;
        cpu = std::max(cpu, e.done[static_cast<size_t>(i) * n + j]) + (scatter ? reduce : 0.0);
        e.step_end[j] = std::max(e.step_end[j], cpu);
      }
    }
  }
}

// When node k's owners all hold the node's sums of their pieces (phase A from the arrivals).
double node_pieces_ready(const GeneratorInput& in, const std::vector<double>& a,
                         const std::vector<int>& members, int pieces, Exchange& e,
                         std::vector<double>& start) {
  const CostParams c = intra_cost(in.cost);
  const double piece = in.bytes / pieces;
  start.clear();
  for (int r : members) start.push_back(a[r]);
  node_exchange(members, start, pieces, true, exchange_message(c, piece), c.gamma * piece, e);
  return *std::max_element(e.step_end.begin(), e.step_end.begin() + pieces);
}

RsagPlan build_rsag_plan(const GeneratorInput& in) {
  RsagPlan rp;
  rp.nodes = two_level_plan(in, true);
  const TwoLevelPlan& plan = rp.nodes;
  rp.pieces = std::numeric_limits<int>::max();
  for (int k = 0; k < plan.nodes; ++k) {
    rp.members.push_back(arrival_members(plan, k));
    rp.pieces = std::min(rp.pieces, static_cast<int>(plan.ranks[k].size()));
  }
  if (static_cast<int>(in.arrivals.size()) == in.p) {
    const std::vector<double> a = estimate::arrivals_of(in);
    Exchange e;
    std::vector<double> start;
    for (int k = 0; k < plan.nodes; ++k)
      rp.ready.push_back(node_pieces_ready(in, a, rp.members[k], rp.pieces, e, start));
  }
  rp.piece = leaders_input(in, plan, rp.ready);
  rp.piece.bytes = in.bytes / rp.pieces;
  // The c runs share every node's link: each sees a c-th of its bandwidth (the estimate also
  // weighs their latencies, which overlap).
  rp.piece.cost.beta = in.cost.beta * rp.pieces;
  // Each candidate weighed at its own block count (the row's estimates are made for those; this
  // row's default is c times the chosen one's), whatever the call's: the plan does not read the
  // call's blocks (piece_input gives the pieces theirs).
  rp.row = leaders_row(Collective::allreduce, in, rp.piece);
  return rp;
}

// The plan of `in` whatever its block count (plan_memo.hpp: built once per call).
std::shared_ptr<const RsagPlan> rsag_plan(const GeneratorInput& in) {
  thread_local PlanMemo<RsagPlan, /*kReadsBlocks=*/false> memo;
  return memo.get(in, build_rsag_plan);
}

// One piece's all-reduce among the nodes with the call's blocks.
GeneratorInput piece_input(const RsagPlan& rp, const GeneratorInput& in) {
  GeneratorInput g = rp.piece;
  g.blocks = std::max(1, in.blocks / rp.pieces);
  return g;
}

// Piece j: the call's blocks [j B / c, (j + 1) B / c), as the piece row's blocks (each phase
// block b a sub-range; empty ones carry nothing).
std::vector<BlockSet> piece_map(int blocks, int pieces, int piece_blocks, int j) {
  const int lo = static_cast<int>(int64_t{j} * blocks / pieces);
  const int hi = static_cast<int>(int64_t{j + 1} * blocks / pieces);
  std::vector<BlockSet> map(static_cast<size_t>(piece_blocks));
  for (int b = 0; b < piece_blocks; ++b)
    map[b] = BlockSet::range(lo + static_cast<int>(int64_t{b} * (hi - lo) / piece_blocks),
                             lo + static_cast<int>(int64_t{b + 1} * (hi - lo) / piece_blocks));
  return map;
}

BlockSet piece_blocks(int blocks, int pieces, int j) {
  return BlockSet::range(static_cast<int>(int64_t{j} * blocks / pieces),
                         static_cast<int>(int64_t{j + 1} * blocks / pieces));
}

}  // namespace

void two_level_rsag_allreduce_schedule(const GeneratorInput& in, ScheduleSink& out) {
  if (in.p == 1) return;
  const std::shared_ptr<const RsagPlan> kept = rsag_plan(in);
  const RsagPlan& rp = *kept;
  const GeneratorInput piece_in = piece_input(rp, in);
  const TwoLevelPlan& plan = rp.nodes;
  const int blocks = std::max(1, in.blocks), c = rp.pieces;
  const std::vector<int> wanted = wanted_nodes(plan, out);
  // A. Member i hands piece j to owner j, shift t = j - i (every owner's receives from different
  // senders in turn), c shifts a round: one round where the nodes are of equal size.
  int64_t b_first = 1;
  for (int k = 0; k < plan.nodes; ++k)
    b_first = std::max<int64_t>(b_first, scatter_rounds(static_cast<int>(rp.members[k].size()), c));
  for (int k : wanted) {
    const std::vector<int>& m = rp.members[k];
    const int size = static_cast<int>(m.size());
    for (int t = 1; t < size; ++t)
      for (int i = 0; i < size; ++i) {
        const int j = shift_target(i, t, size, c, true);
        if (j < 0) continue;
        const int64_t round = scatter_round(t, c);
        if (out.wants(m[i])) out.send(m[i], round, m[j], piece_blocks(blocks, c, j));
        if (out.wants(m[j]))
          out.recv(m[j], round, m[i], piece_blocks(blocks, c, j), Combine::reduce);
      }
  }
  // B. From round b_first: piece j's all-reduce among its owners, one per node (member j of each).
  std::vector<int> owners(static_cast<size_t>(plan.nodes));
  std::vector<bool> piece_wanted(static_cast<size_t>(c), false);
  for (int k : wanted)
    for (int j = 0; j < c; ++j) piece_wanted[j] = piece_wanted[j] || out.wants(rp.members[k][j]);
  for (int j = 0; j < c && plan.nodes > 1; ++j) {
    if (!piece_wanted[j]) continue;
    for (int k = 0; k < plan.nodes; ++k) owners[k] = rp.members[k][j];
    const std::vector<BlockSet> map = piece_map(blocks, c, piece_in.blocks, j);
    emit_phase(rp.row->generate, piece_in,
               GroupPhase{.members = owners,
                          .first_round = b_first,
                          .block_map = map,
                          .keep_pacing = false},
               out);
  }
  // C. After node k's part of B (the same rounds for every piece: the runs differ only in their
  // blocks), each owner hands its piece to every other rank of the node.
  for (int k : wanted) {
    int64_t after = b_first;
    if (plan.nodes > 1) {
      for (int i = 0; i < plan.nodes; ++i) owners[i] = rp.members[i][0];
      const GroupPhase b{.members = owners, .first_round = b_first, .block_map = {}};
      after = std::max(after, last_round(phase_rank(rp.row->generate, piece_in, b, k)) + 1);
    }
    const std::vector<int>& m = rp.members[k];
    const int size = static_cast<int>(m.size());
    for (int t = 1; t < size; ++t)
      for (int j = 0; j < c; ++j) {
        const int i = (j + t) % size;
        if (out.wants(m[j])) out.send(m[j], after, m[i], piece_blocks(blocks, c, j));
        if (out.wants(m[i])) out.recv(m[i], after, m[j], piece_blocks(blocks, c, j), Combine::copy);
      }
  }
}

std::string two_level_rsag_allreduce_arrival_key(const GeneratorInput& in) {
  const std::shared_ptr<const RsagPlan> kept = rsag_plan(in);
  const RsagPlan& rp = *kept;
  const GeneratorInput piece_in = piece_input(rp, in);
  return two_level_key(rp.nodes, *rp.row, piece_in);
}

int two_level_rsag_allreduce_blocks(const GeneratorInput& in) {
  GeneratorInput own = in;
  own.blocks = 0;  // each candidate with its own count
  const std::shared_ptr<const RsagPlan> kept = rsag_plan(own);
  const RsagPlan& rp = *kept;
  const GeneratorInput piece_in = piece_input(rp, own);
  return rp.pieces * default_block_count(*rp.row, piece_in);
}

double two_level_rsag_allreduce_predict(const GeneratorInput& in) {
  if (in.p == 1) return 0;
  // Not costed (+inf, so never auto's) where a node's links are not at least kRsagLinkRatio times
  // faster than the network's and the exchanges inside a node were not timed: there the
  // exchanges (each rank takes c - 1 pieces into scratch and reduces them) last as long as the
  // network phase, and what the port model leaves out of them (the executor's memory work, its
  // posting of 2 (c - 1) messages in one step, copies side by side or queued for a memory bus)
  // decides. On opa-32x32 (8 GB/s inside a node, 12.5 GB/s between) the port model costed the
  // row at 1.7 ms on time and 2.4 with one rank 1 ms late, against 8.4 and 27.3 then taken
  // (docs/results.md). A timed exchange (CostParams::exchange_alpha, exchange_beta) holds all of
  // that, and the estimate below reads it.
  const CostParams intra = intra_cost(in.cost);
  if (in.nodes != nullptr && !in.cost.exchange_measured() &&
      intra.beta * kRsagLinkRatio > in.cost.beta)
    return std::numeric_limits<double>::infinity();
  const std::shared_ptr<const RsagPlan> kept = rsag_plan(in);
  const RsagPlan& rp = *kept;
  const GeneratorInput piece_in = piece_input(rp, in);
  const TwoLevelPlan& plan = rp.nodes;
  const std::vector<double> a = estimate::arrivals_of(in);
  Exchange e;
  std::vector<double> start;
  std::vector<double> ready = rp.ready;
  if (ready.empty())
    for (int k = 0; k < plan.nodes; ++k)
      ready.push_back(node_pieces_ready(in, a, rp.members[k], rp.pieces, e, start));
  // B: the c runs side by side. A round of messages of m bytes leaves a node in max(alpha +
  // beta m, c beta m): their latencies overlap and their bytes queue on the link. So a node is
  // done no earlier than one run alone would be, nor than its bytes take c times over on top of
  // the latencies after the last node is ready (an all-reduce waits for every node):
  // max(f(beta), f(c beta) - (f(0) - latest)), f the row's estimate with that beta.
  // Both an owner's finish among the nodes and when it holds its piece's result (C starts from
  // there), each bounded so.
  LeadersDone f = leaders_finish(plan, ready, *rp.row, piece_in);
  if (rp.pieces > 1 && plan.nodes > 1) {
    GeneratorInput alone = piece_in, latency = piece_in;
    alone.cost.beta = in.cost.beta;
    latency.cost.beta = 0;
    const LeadersDone f1 = leaders_finish(plan, ready, *rp.row, alone);
    const LeadersDone f0 = leaders_finish(plan, ready, *rp.row, latency);
    const double latest = *std::max_element(ready.begin(), ready.end());
    for (int k = 0; k < plan.nodes; ++k) {
      f.finish[k] = std::max(f1.finish[k], f.finish[k] - std::max(0.0, f0.finish[k] - latest));
      f.has[k] = std::max(f1.has[k], f.has[k] - std::max(0.0, f0.has[k] - latest));
    }
  }
  const CostParams c = intra_cost(in.cost);
  const double piece = in.bytes / rp.pieces;
  const double message = exchange_message(c, piece);
  std::vector<double> done(static_cast<size_t>(in.p));
  for (int k = 0; k < plan.nodes; ++k) {
    const std::vector<int>& m = rp.members[k];
    start.clear();
    for (int r : m) start.push_back(a[r]);
    // A, then C from each owner's finish among the nodes (the others' from their part of A).
    node_exchange(m, start, rp.pieces, true, message, c.gamma * piece, e);
    for (size_t i = 0; i < m.size(); ++i) start[i] = std::max(e.step_end[i], e.sent[i]);
    if (plan.nodes > 1)
      for (int j = 0; j < rp.pieces; ++j) start[j] = std::max(start[j], f.has[k]);
    node_exchange(m, start, rp.pieces, false, message, 0, e);
    for (size_t i = 0; i < m.size(); ++i) done[m[i]] = std::max(e.step_end[i], e.sent[i]);
    if (plan.nodes > 1)
      for (int j = 0; j < rp.pieces; ++j) done[m[j]] = std::max(done[m[j]], f.finish[k]);
  }
  return estimate::mean_elapsed(done, a);
}

}  // namespace papcoll
