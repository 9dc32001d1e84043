// Where generators write. A generator describes its algorithm rank by rank: for every rank the sink
// asks for (first_rank() .. last_rank() - 1) it emits that rank's sends and receives, each in a
// round. A call builds only its own rank, so a generator must compute a rank's ops without
// enumerating the other ranks' (docs/algorithms.md, "Per-rank generation"); the whole schedule
// (verifier, cost model, papcoll-sched, tests) asks for every rank. Nothing checks here that a send
// has its receive: each rank derives both sides from its own arithmetic, and the verifier
// (verify/verifier.hpp) pairs them up.
//
// Generators that are one global computation (Clairvoyant's greedy simulation, the scatter/gather
// trees) may emit whole transfers instead: transfer() keeps the ends that belong to wanted ranks.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "schedule/schedule.hpp"

namespace papcoll {

class ScheduleSink {
 public:
  // Collects ranks [first, last) of a p-rank schedule.
  ScheduleSink(int p, int first, int last);

  int p() const { return p_; }
  int first_rank() const { return first_; }
  int last_rank() const { return last_; }
  bool wants(int r) const { return r >= first_ && r < last_; }

  // One end of a message at `rank` (which must be wanted). An empty block set adds nothing.
  // Ops may come in any round order; ops of one round keep the order they came in.
  // Inline: at scale a rank's part is thousands of ops, each through here.
  // `paced`: see Op::paced (a phase's paced sends carried into a composed schedule).
  void send(int rank, int64_t round, int to, BlockSet blocks, bool paced = false) {
    if (blocks.empty()) return;
    add(rank, round, Op{OpKind::send, to, std::move(blocks), Combine::none, paced});
  }
  void recv(int rank, int64_t round, int from, BlockSet blocks, Combine combine) {
    if (blocks.empty()) return;
    add(rank, round, Op{OpKind::recv, from, std::move(blocks), combine});
  }
  // Both ends of a message, each kept when its rank is wanted.
  void transfer(int64_t round, int from, int to, const BlockSet& blocks, Combine combine);

  // A hint: about `ops` ops will come for `rank` (saves regrowing its arrays).
  void reserve(int rank, size_t ops);
  // Every rank's sends of rounds below `round` are paced (Op::paced: the generator predicts
  // their receivers present), synchronous from `bytes` on (RankSchedule::paced_bytes, usually
  // paced_send_bytes(in.cost)). May come before or after the ops.
  void set_paced_until(int64_t round, int64_t bytes) {
    paced_until_ = round;
    paced_bytes_ = bytes;
  }
  // The size from which paced sends are synchronous, for sends already marked paced (a phase's,
  // carried into the whole by emit_phase); the rounds paced stay as they are.
  void set_paced_bytes(int64_t bytes) { paced_bytes_ = bytes; }

  // The wanted ranks' schedules in rank order, steps in ascending rounds.
  std::vector<RankSchedule> take() &&;

 private:
  // Ops arriving in round order go straight into the rank's schedule; once one comes out of order
  // the rank keeps every op's round and is sorted (stably) at the end.
  struct RankOps {
    RankSchedule rs;
    bool ordered = true;
    std::vector<int64_t> rounds;  // per op, once !ordered
  };
  void add(int rank, int64_t round, Op&& op) {
    if (!wants(rank) || op.peer == rank) [[unlikely]]
      misuse(rank, op);
    RankOps& r = ranks_[static_cast<size_t>(rank - first_)];
    if (r.ordered && (r.rs.steps.empty() || round >= r.rs.steps.back().round)) {
      r.rs.add(round, std::move(op));
      return;
    }
    add_unordered(r, round, std::move(op));
  }
  [[noreturn]] void misuse(int rank, const Op& op) const;
  void add_unordered(RankOps& r, int64_t round, Op&& op);

  int p_, first_, last_;
  int64_t paced_until_ = 0;
  int64_t paced_bytes_ = 0;
  std::vector<RankOps> ranks_;
};

// Block ids of chunk j when B blocks are dealt to `parts` consecutive chunks as evenly as possible
// (chunk j gets blocks [j*B/parts, (j+1)*B/parts)); empty when B < parts for some j.
BlockSet chunk_blocks(int blocks, int parts, int j);

}  // namespace papcoll
