// The one schedule representation every algorithm emits and every consumer (verifier, cost model,
// MPI executor, JSON writer) reads. No MPI here: generators are pure functions.
//
// A rank's part is compact because the executor reads it on every call: its ops live in one flat
// array, steps are ranges of it, and a message's blocks are runs of consecutive ids, the first run
// stored inline, so the usual one-range message allocates nothing (docs/schedule-format.md).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

namespace papcoll {

enum class Collective { allreduce, reduce, bcast, allgatherv, scatterv, gatherv };

enum class OpKind { send, recv };

// What a receive does with the incoming blocks: fold them into the local partial result (reduce) or
// overwrite the local blocks (copy). Sends carry Combine::none.
enum class Combine { none, reduce, copy };

// Block ids [first, first + count).
struct BlockRun {
  int first = 0;
  int count = 0;
  int end() const { return first + count; }
  bool operator==(const BlockRun&) const = default;
};

// A set of block ids kept as ascending, maximal runs of consecutive ids.
class BlockSet {
 public:
  BlockSet() = default;
  // Any order; duplicates are dropped.
  BlockSet(std::initializer_list<int> ids);
  explicit BlockSet(const std::vector<int>& ids);
  // [first, last); empty when last <= first. Inline: generators make one per op.
  static BlockSet range(int first, int last) {
    BlockSet s;
    if (last > first) s.head_ = {first, last - first};
    return s;
  }

  // Appends ids above every id already held (ascending construction, O(1)).
  void append(int b) { append_range(b, b + 1); }
  void append_range(int first, int last);

  bool empty() const { return head_.count == 0; }
  int64_t size() const;  // number of ids
  std::span<const BlockRun> runs() const {
    return more_.empty() ? std::span<const BlockRun>(&head_, head_.count > 0 ? 1 : 0)
                         : std::span<const BlockRun>(more_);
  }
  int front() const { return runs().front().first; }
  int back() const { return runs().back().end() - 1; }
  bool contains(int b) const;
  std::vector<int> ids() const;

  // Every id in ascending order.
  template <typename F>
  void for_each(F&& f) const {
    for (const BlockRun& r : runs())
      for (int b = r.first; b < r.end(); ++b) f(b);
  }

  bool operator==(const BlockSet& o) const;

 private:
  BlockRun head_;               // the only run, while more_ is empty
  std::vector<BlockRun> more_;  // every run, once there are two or more
};

struct Op {
  OpKind kind = OpKind::send;
  int peer = 0;
  BlockSet blocks;
  Combine combine = Combine::none;
  bool operator==(const Op&) const = default;
};

// All ops of one rank in one round: ops [first_op, first_op + op_count) of the rank's array.
// Sends read the rank's state before this step's receives are combined, so a block may be sent and
// overwritten/reduced in the same step.
struct Step {
  int64_t round = 0;
  int first_op = 0;
  int op_count = 0;
  bool operator==(const Step&) const = default;
};

struct RankSchedule {
  int rank = 0;
  std::vector<Step> steps;  // strictly increasing rounds
  std::vector<Op> ops;      // every step's ops, step after step
  // Steps of rounds below this one are paced (docs/algorithms.md, "Paced sends"): the generator
  // predicts every receiver of their sends present when it sends, so the executor may hold a
  // step's large sends until the earlier ones have been taken. 0: none.
  int64_t paced_until = 0;

  std::span<const Op> ops_of(const Step& s) const {
    return {ops.data() + s.first_op, static_cast<size_t>(s.op_count)};
  }
  // Appends `op` to the step of `round`, which must be the last step's round or a later one.
  void add(int64_t round, Op op) {
    if (steps.empty() || steps.back().round != round) new_step(round);
    ops.push_back(std::move(op));
    ++steps.back().op_count;
  }
  // Heap bytes held (for the schedule cache's byte limit).
  int64_t bytes() const;
  bool operator==(const RankSchedule&) const = default;

 private:
  void new_step(int64_t round);
};

struct Schedule {
  Collective collective = Collective::allreduce;
  std::string algorithm;
  int p = 1;
  int root = -1;  // -1: no root
  int blocks = 1;
  std::vector<RankSchedule> ranks;  // ranks[r].rank == r
};

const char* collective_name(Collective c);
bool parse_collective(const std::string& s, Collective* out);

}  // namespace papcoll
