// Plans derived from one generator input several times in one call, built once.
//
// A two-level row's plan (who leads each node, when each node is ready, which row runs among the
// nodes: two_level.hpp) is what its block count, its estimate, its schedule-cache key and its
// schedule all start from, and on a call of `auto` every rank asks for all four: the plan was
// built five times per call (the block count as auto prepares the candidate's input and again as
// the call runs it, the estimate, the key, the schedule), 0.15 to 0.3 ms each at 1024 ranks with a
// new arrival pattern. A PlanMemo keeps the plans of the last few inputs of the calling thread, so
// a call builds each once and a repeated pattern none; what a plan is stays a pure function of its
// input (inputs are compared as the last-schedule cache compares them: same_input).
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <utility>

#include "schedule/registry.hpp"
#include "schedule/schedule_cache.hpp"

namespace papcoll {

namespace plan_memo_detail {
inline std::atomic<uint64_t> epoch{0};
}  // namespace plan_memo_detail

// Every PlanMemo of the process forgets what it keeps (tools timing a first call: papcoll-sched
// time, as clairvoyant::clear_finish_rounds does for Clairvoyant's simulations).
inline void forget_plans() { plan_memo_detail::epoch.fetch_add(1, std::memory_order_relaxed); }

// kReadsBlocks false: the plan does not depend on the input's block count (inputs that differ in it
// alone share one plan), and it is built from the input with no block count (blocks = 0), so that
// it cannot depend on whichever count the first caller happened to have.
template <typename Plan, bool kReadsBlocks = true, std::size_t kKept = 4>
class PlanMemo {
 public:
  // What a plan reads beside its input, where it reads more (two words, compared exactly).
  using Tag = std::array<uint64_t, 2>;

  // The plan of (`tag`, `in`), built by build(in) where none of the last kKept matches.
  template <typename Build>
  std::shared_ptr<const Plan> get(const GeneratorInput& in, Build&& build, Tag tag = {}) {
    const uint64_t epoch = plan_memo_detail::epoch.load(std::memory_order_relaxed);
    for (std::size_t i = 0; i < kKept; ++i) {
      Entry& e = entries_[i];
      if (e.plan != nullptr && e.epoch == epoch && e.tag == tag &&
          same_input(e.in, in, kReadsBlocks)) {
        std::shared_ptr<const Plan> plan = e.plan;
        if (i != 0) std::rotate(entries_.begin(), entries_.begin() + i, entries_.begin() + i + 1);
        return plan;
      }
    }
    std::shared_ptr<const Plan> plan;
    if constexpr (kReadsBlocks) {
      plan = std::make_shared<const Plan>(std::forward<Build>(build)(in));
    } else {
      GeneratorInput any_blocks = in;
      any_blocks.blocks = 0;
      plan = std::make_shared<const Plan>(std::forward<Build>(build)(any_blocks));
    }
    std::rotate(entries_.rbegin(), entries_.rbegin() + 1, entries_.rend());  // the oldest goes
    // The layout by identity in same_input: the entry's copy keeps it alive, so a new layout at
    // the same address can never match.
    entries_[0] = Entry{epoch, tag, in, plan};
    return plan;
  }

 private:
  struct Entry {
    uint64_t epoch = 0;
    Tag tag{};
    GeneratorInput in;
    std::shared_ptr<const Plan> plan;
  };
  std::array<Entry, kKept> entries_;
};

}  // namespace papcoll
