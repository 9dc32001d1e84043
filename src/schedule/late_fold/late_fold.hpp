// What the late-fold all-reduce and reduce share (docs/algorithms.md, "late-fold"): the circulant
// broadcast the all-reduce runs backwards and forwards, the early group's reduce the reduce runs
// (early_reduce, Clairvoyant), the chain estimates and the arrival plan both read.
//
// The idea: ranks that arrive early (E) combine their data among themselves while the late ones
// are still computing, and the late ranks' data then makes one pass through the network. In the
// all-reduce E reduce-scatters, so that block b of the early sum sits at one rank N_b, the late
// data is folded in there and the result spreads from there. The reduce-scatter is the time
// reversal of Träff's round-optimal circulant broadcast (arXiv 2312.11236) over the positions
// {root} + E with the root's own transfers left out: in the broadcast the root sends block b
// once, to N_b = root + skip[k(b)], so in the reversal N_b ends with the sum of everything below
// it, i.e. of E. The broadcast itself, run forwards from the root after the late data has been
// folded in at N_b, then delivers the result to every position in n - 1 + O(log p) block rounds.
// In the reduce E reduces to one rank with Clairvoyant (early_reduce) and the late data streams
// to the root.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "schedule/allreduce/prr_plan.hpp"
#include "schedule/circulant/circulant_skips.hpp"
#include "schedule/registry.hpp"
#include "schedule/schedule_sink.hpp"

namespace papcoll {

// ceil(log2 p) (0 for p = 1): the rounds the circulant phases add to their blocks.
inline int ceil_log2_ranks(int p) {
  int q = 0;
  while ((1LL << q) < p) ++q;
  return q;
}

// Träff's n-block broadcast on the circulant graph of M positions, root at position 0, with the
// real blocks 0..n-1 padded by q - 1 empty ones: the schedule sends blocks above its last one as
// that last one, and the padding makes that an empty block, so the root sends every real block
// exactly once (block t in round t, to owner(t)) and every other position receives every real
// block exactly once. Only transfers of real blocks are reported.
class FoldCirculant {
 public:
  FoldCirculant(int positions, int blocks);

  int positions() const { return m_; }
  int blocks() const { return n_; }
  int q() const { return sk_.q; }
  // Forward rounds 0 .. rounds() - 1 hold every transfer of a real block.
  int rounds() const { return rounds_; }
  // The position that receives block b from the root (in round b).
  int owner(int b) const { return sk_.skip[(x_ + b) % sk_.q]; }
  // The position whose round-t send would go to the root, so it sends nothing in round t.
  int idle_sender(int t) const { return m_ - sk_.skip[(x_ + t) % sk_.q]; }

  struct Transfer {
    int round;  // forward round
    bool send;  // else a receive
    int peer;   // position
    int block;
  };
  // Position v's transfers of real blocks in forward round order (a send before a receive in a
  // round). Nothing is ever sent to the root.
  std::vector<Transfer> transfers(int v) const;

  // Per position, from its schedules alone (O(log p)): the forward round in which it receives real
  // block b (v != 0), and its first and last rounds with a real transfer (-1 if none).
  struct Timing {
    int recv_delay[circulant::kMaxQ];  // round of block b = b + recv_delay[(x + b) mod q]
    int first = -1, last = -1;
  };
  Timing timing(int v) const;
  int recv_round(const Timing& t, int b) const { return b + t.recv_delay[(x_ + b) % sk_.q]; }
  // The last forward round with a real transfer (the padding adds empty ones after it): the max
  // of timing(v).last over every position, or over 256 evenly spaced ones when there are more
  // than 512 (every position receives in the final rounds of a round-optimal broadcast).
  int last_real_round() const;

  // timing(v).first and .last. The estimates read them for every position (up to 512, else for
  // the 256 evenly spaced v = 1 + i (M - 1) / 256) on every new arrival pattern and every
  // candidate count of late ranks, though they depend on (M, n) alone: they come from a table of
  // those positions kept per thread for the last few (M, n) (other positions are computed).
  struct Span {
    int first = -1, last = -1;
  };
  Span span(int v) const;

  // The table behind span() and last_real_round().
  struct Spans;

 private:
  const Spans& spans() const;

  int m_, n_, nv_, rounds_, x_;
  circulant::Skips sk_;
  // Filled on first use: a FoldCirculant is one thread's (estimates and generators make their
  // own), so the lazy fill needs no lock.
  mutable std::shared_ptr<const Spans> spans_;
};

// The arrival plan of late-fold: PRR's plan taken with p blocks (arrival order, ties by rank, and
// integer arrival slots of one chunk time alpha + (beta + gamma) bytes / p), so that the slots are
// the same whatever block count the call uses, but without PRR's cap on the slots (the early
// group's Clairvoyant needs the real spread). Everything late-fold decides is a function of it.
struct LateFoldPlan {
  PrrPlan prr;            // order and slots
  double chunk_time = 0;  // seconds per slot
  // The arrivals as the plan sees them: rank r arrives at slot * chunk_time.
  std::vector<double> quantised;
};
LateFoldPlan late_fold_plan(const GeneratorInput& in);
// The most ranks worth counting as late: those in a later slot than the earliest rank, at most
// `cap` and p - 1. Each candidate count costs an estimate with a Clairvoyant simulation of the
// early group, so ranks that arrive with the first are not tried.
int max_late(const LateFoldPlan& plan, int cap);

// Who does what in the all-reduce when the last `late` ranks in arrival order (late >= 1) are late:
// the last of them is `root`, the others form the chain (in arrival order) that streams their sum
// into it; every other rank is in the early group and has a position 0..M-1 of the circulant in
// arrival order, position 0 (the earliest) being the relay that the root feeds.
struct LateFoldLayout {
  int late = 0;
  int root = -1;
  std::vector<int> chain;
  std::vector<int> rank_at;   // position -> rank
  std::vector<int> position;  // rank -> position, -1 for the root and the chain
};
LateFoldLayout late_fold_layout(const std::vector<int>& order, int late);

// The round in which the idle sender of a round hands block b of the result to the rank that gets
// the result stream (the root or the chain's head), and who sends it: the blocks in order, each in
// the first round after the one before in which that round's idle sender already holds it.
struct ResultStream {
  std::vector<int> round;   // per block, forward round
  std::vector<int> sender;  // per block, position
};
ResultStream result_stream(const FoldCirculant& c, int blocks);

// The circulant's blocks as runs of the call's (fine) blocks, `per` of them (at most 4, and fine
// blocks / 2p) each. A pipelined broadcast spends its first O(q) rounds filling the doubling:
// ranks that hold the first block forward it to several neighbours in a row, with nothing to
// receive in between. The cost model queues those sends; a network that shares a link among
// concurrent messages (SimGrid, TCP) delivers them all late, and the lag spreads down the tree
// (docs/algorithms.md, "late-fold in SMPI"). With `ramp_up` the first blocks are small, so that
// start is cheap: 1, 2, 4, ... fine blocks, q of each size, up to `per`. The time-reversed
// broadcast (the reduce-scatter) is not ramped: small blocks where it starts (the broadcast's
// end) made it slower in SMPI, uniform blocks match the model. Nor is the broadcast's end: in
// lockstep a round lasts as long as the largest block still travelling, so small last blocks
// only add rounds.
struct BlockRuns {
  std::vector<int> first;  // logical block i = fine blocks [first[i], first[i + 1])
  int count() const { return static_cast<int>(first.size()) - 1; }
  int size(int i) const { return first[i + 1] - first[i]; }
  BlockSet set(int i) const { return BlockSet::range(first[i], first[i + 1]); }
};
BlockRuns late_fold_runs(int fine_blocks, int p, bool ramp_up);
// The same with `per` fine blocks per logical block (up to the ramp of q of each smaller size).
BlockRuns fold_runs(int fine_blocks, int per, int q, bool ramp_up);

// Time of logical rounds under the cost model: a round carrying logical block i costs one message
// of its bytes (plus its reduction when `reduced`); round r >= count() carries the last block's
// size.
struct RunClock {
  std::vector<double> before;  // before[i]: the rounds of blocks 0..i-1
  double tail = 0;             // a round after the last block
  double at(long r) const {
    const long n = static_cast<long>(before.size()) - 1;
    return r <= n ? before[r] : before[n] + (r - n) * tail;
  }
};
RunClock run_clock(const GeneratorInput& in, const BlockRuns& runs, bool reduced);

// The early group's reduce while the late ranks compute: Clairvoyant (Proficz & Ocetkiewicz's
// greedy, src/schedule/clairvoyant/) over the ranks `group` (group[0] its root) with their
// arrivals, on `runs` as its segments. The time-reversed circulant broadcast is as fast in the cost
// model, but under SimGrid's link sharing it took up to 1.7 times the model's time while
// Clairvoyant's matched it (docs/algorithms.md, "late-fold in SMPI").
struct EarlyReduce {
  struct Op {
    int64_t round;  // 0 .. rounds - 1
    bool send;
    int peer;   // a rank
    int block;  // a logical block (segment) of `runs`
    bool copy;  // a receive that overwrites
  };
  int64_t rounds = 0;                // rounds that hold a transfer
  double round_time = 0;             // d: one segment sent and reduced
  double start = 0;                  // the earliest arrival in the group (round 0 starts there)
  std::vector<int64_t> last_round;   // per group position: the last round it takes part in, -1
  std::vector<std::vector<Op>> ops;  // per group position
  // When position v is done: start + (last_round[v] + 1) d.
  double done(int v) const { return start + static_cast<double>(last_round[v] + 1) * round_time; }
};
EarlyReduce early_reduce(const GeneratorInput& in, const BlockRuns& runs,
                         const std::vector<int>& group, const std::vector<double>& a);
// The same without the ops: what the estimates read, from Clairvoyant's cached finishing rounds
// (clairvoyant/finish_rounds.hpp). The simulation runs on `sim` (the plan's quantised arrivals,
// as the generator runs it, so that a pattern that quantises alike finds it cached), its rounds
// start at the group's earliest arrival in `a`.
EarlyReduce early_reduce_timing(const GeneratorInput& in, const BlockRuns& runs,
                                const std::vector<int>& group, const std::vector<double>& sim,
                                const std::vector<double>& a);

// How many rounds Träff's reduce (the broadcast `c` run backwards) takes when every position
// moves as soon as its data is there: min(the padded schedule's real rounds, n - 1 + q)
// (circulant_reduce.cpp).
double reduce_rounds(const FoldCirculant& c);

// Phases 2 to 4 of the all-reduce, after an early phase (rounds [0, t1)) that leaves the early
// group's sum of every logical block of `runs` at the relay (position 0 of `l`): the chain
// streams into the root, the root sends block b to the relay in round r2 + b - 1, the relay folds
// it in and is the root of the circulant broadcast over the early positions (forward round t is
// round r2 + t), the round's idle sender streams the result to the root or the chain's head, and
// servers hand the other late ranks the whole result afterwards (late_fold_tail.cpp). Shared by
// late-fold (Clairvoyant's early reduce) and relay-fold (Träff's, run backwards).
class FoldTail {
 public:
  FoldTail(const LateFoldLayout& l, const BlockRuns& runs, int64_t t1);
  int64_t r2() const { return r2_; }
  // Rank r's ops of these phases (r anywhere: early, chain or root).
  void emit(const GeneratorInput& in, int r, ScheduleSink& out) const;
  // The cost model's finish of every rank but the early ones' phase-1 part, from the time the
  // relay holds the early sum (`relay_ready`) and the arrivals `a`, blocks timed by run_clock;
  // `has` (unless null): when each rank holds the whole result (a server before it hands it on).
  void estimate(const GeneratorInput& in, const std::vector<double>& a, double relay_ready,
                std::vector<double>& finish, std::vector<double>* has = nullptr) const;

 private:
  const LateFoldLayout& l_;
  const BlockRuns& runs_;
  FoldCirculant c_;
  ResultStream stream_;
  std::vector<int> serving_;
  int64_t r2_, serve_;
};

// Who is where in a reduce whose last `late` ranks in arrival order are late: the early group
// (group[0] the reduce's root if it is early, else the early rank that collects for it), the
// chain of the other late ranks in arrival order, and whether the root is one of the late ranks.
struct ReduceFoldLayout {
  std::vector<int> group, chain;
  bool root_late = false;
};
ReduceFoldLayout reduce_fold_layout(const std::vector<int>& order, int root, int late);

// The reduce's phase after an early phase (rounds [0, t1)) that leaves the group's sum of every
// logical block at group[0], the sink (the root, or its collector): the chain streams the late
// ranks' sum into the sink block by block, and a collector hands each block on to a late root in
// the next round (late_fold_tail.cpp). Shared by late-fold and relay-fold.
class ReduceFoldTail {
 public:
  ReduceFoldTail(const ReduceFoldLayout& l, const BlockRuns& runs, int root, int64_t t1);
  void emit(int r, ScheduleSink& out) const;
  // Finish of the chain, the sink and a late root, from when the sink holds the group's sum.
  void estimate(const GeneratorInput& in, const std::vector<double>& a, double sink_ready,
                std::vector<double>& finish) const;

 private:
  const ReduceFoldLayout& l_;
  const BlockRuns& runs_;
  int root_;
  int64_t r2_;
};

// The estimate of a pipelined chain (estimate.hpp): members in order stream n blocks, one hop of
// `hop` seconds each, into a receiver present from `receiver_arrival`. A member's steps wait only
// for its receives (sends are non-blocking), so the chain fills up to a missing member. Returns
// when block 0 reaches the receiver; sets each member's finish (its last send's end). `hop` times
// the blocks.
double chain_estimate(const std::vector<int>& members, const std::vector<double>& a,
                      double receiver_arrival, const RunClock& hop, std::vector<double>& finish);

// Blocks of late-fold: a multiple of p (so that PRR's p chunks are whole blocks), near the number
// that balances the circulant's extra rounds against alpha per message; in the one-node form
// (cost.shared_memory) blocks of about 256 KiB, at most 64.
int late_fold_blocks(const GeneratorInput& in);

}  // namespace papcoll
