// The one schedule representation every algorithm emits and every consumer (verifier, cost model,
// MPI executor, JSON writer) reads. No MPI here: generators are pure functions.
//
// A rank's part is compact because the executor reads it on every call: its ops live in one flat
// array, steps are ranges of it, and a message's blocks are runs of consecutive ids, the first run
// stored inline, so the usual one-range message allocates nothing (docs/schedule-format.md).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <new>
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

class BlockSet;

// Blocks named by a rule instead of listed (docs/schedule-format.md, "Rule-named blocks"): for a
// message whose ids form no few runs yet follow from arithmetic every rank can do, such as
// Algorithm 2's message with one block of every origin (circulant_message.hpp). A generator emits
// such an op in O(1); the O(p) listing is formed on the first read and kept, where the message is
// packed anyway.
class BlockRule {
 public:
  virtual ~BlockRule() = default;
  // Appends the named ids, ascending, to the empty set `out`; at least one.
  virtual void expand(BlockSet& out) const = 0;
  // True only if `other` names the same ids (a cheap test by construction; false is no verdict).
  virtual bool same(const BlockRule& other) const = 0;
  // Upper bound of the listing's heap bytes (the schedule cache counts them before any read).
  virtual int64_t listing_bytes() const = 0;
};

// A set of block ids kept as ascending, maximal runs of consecutive ids.
class BlockSet {
 public:
  BlockSet() noexcept {}
  // Any order; duplicates are dropped.
  BlockSet(std::initializer_list<int> ids);
  explicit BlockSet(const std::vector<int>& ids);
  // [first, last); empty when last <= first. Inline: generators make one per op.
  static BlockSet range(int first, int last) {
    BlockSet s;
    if (last > first) s.head_ = {first, last - first};
    return s;
  }

  // The ids `rule` names (never empty), listed on the first read; copies share the listing.
  static BlockSet named_by(std::shared_ptr<const BlockRule> rule);

  BlockSet(const BlockSet& o) : head_(o.head_) {
    if (o.is_rule()) [[unlikely]]
      new (&lazy_) std::shared_ptr<Listing>(o.lazy_);
    else
      new (&more_) std::vector<BlockRun>(o.more_);
  }
  BlockSet(BlockSet&& o) noexcept : head_(o.head_) { take(o); }
  BlockSet& operator=(const BlockSet& o) {
    if (this != &o) *this = BlockSet(o);
    return *this;
  }
  BlockSet& operator=(BlockSet&& o) noexcept {
    if (this != &o) {
      destroy();
      head_ = o.head_;
      take(o);
    }
    return *this;
  }
  ~BlockSet() { destroy(); }

  // Appends ids above every id already held (ascending construction, O(1)); not to a rule's set.
  void append(int b) { append_range(b, b + 1); }
  void append_range(int first, int last);

  bool empty() const { return head_.count == 0; }
  int64_t size() const;  // number of ids
  std::span<const BlockRun> runs() const {
    if (is_rule()) [[unlikely]]
      return listed_runs();
    return more_.empty() ? std::span<const BlockRun>(&head_, head_.count > 0 ? 1 : 0)
                         : std::span<const BlockRun>(more_);
  }
  bool named_by_rule() const { return is_rule(); }
  // Heap bytes held (a rule's set: its bound, listed or not).
  int64_t heap_bytes() const;
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
  struct Listing;  // a rule and, once read, its ids (schedule.cpp)
  // A rule's set is marked by head_.count == kRule and holds lazy_ instead of more_: a union, so
  // that the set stays 32 bytes (every op of every schedule holds one; a separate pointer made
  // the ring's generation 1.5x slower).
  static constexpr int kRule = -1;
  bool is_rule() const { return head_.count == kRule; }
  std::span<const BlockRun> listed_runs() const;
  // Moves o's storage into this one's (head_ already copied); o is left empty.
  void take(BlockSet& o) noexcept {
    if (o.is_rule()) [[unlikely]] {
      new (&lazy_) std::shared_ptr<Listing>(std::move(o.lazy_));
      o.lazy_.~shared_ptr();
      new (&o.more_) std::vector<BlockRun>();
      o.head_ = {};
    } else {
      new (&more_) std::vector<BlockRun>(std::move(o.more_));
    }
  }
  void destroy() noexcept {
    if (is_rule()) [[unlikely]]
      lazy_.~shared_ptr();
    else
      more_.~vector();
  }

  BlockRun head_;  // the only run, while more_ is empty
  union {
    std::vector<BlockRun> more_{};   // every run, once there are two or more
    std::shared_ptr<Listing> lazy_;  // a rule's set (head_.count == kRule)
  };
};

struct Op {
  OpKind kind = OpKind::send;
  int peer = 0;
  BlockSet blocks;
  Combine combine = Combine::none;
  // A send the generator predicts its receiver present for (docs/algorithms.md, "Paced sends"):
  // the executor may hold it until the rank's earlier paced sends have been taken.
  bool paced = false;
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

// The most RankSchedule::paced_bytes is (paced_send_bytes), and what the executor takes where a
// schedule names none.
inline constexpr int64_t kPacedBytesMost = 16 * 1024;

struct RankSchedule {
  int rank = 0;
  std::vector<Step> steps;  // strictly increasing rounds
  std::vector<Op> ops;      // every step's ops, step after step
  // Paced sends (Op::paced) of at least this many bytes are synchronous and go one round at a
  // time (docs/algorithms.md, "Paced sends"): where a message's time starts to be mostly
  // bandwidth on the generator's network (paced_send_bytes). 0 where no send is paced.
  int64_t paced_bytes = 0;

  std::span<const Op> ops_of(const Step& s) const {
    return {ops.data() + s.first_op, static_cast<size_t>(s.op_count)};
  }
  // Appends `op` to the step of `round`, which must be the last step's round or a later one.
  void add(int64_t round, Op&& op) {
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
