// What PRR reads of the arrival pattern (Proficz, Sec. 4.2): the ring order (positions sorted by
// arrival, ties by rank) and each position's arrival slot, the whole number of block times tau
// after the earliest rank. Everything PRR derives (pre-steps, segment starts, transfer order) is a
// function of this plan, which is therefore also its schedule-cache key.
#pragma once

#include <string>
#include <vector>

#include "schedule/registry.hpp"

namespace papcoll {

struct PrrPlan {
  std::vector<int> order;  // position -> rank
  std::vector<long> slot;  // position -> arrival slot, non-decreasing, capped at 4p + 8
  std::string key() const;
};

// tau = prr_slot_time(in). Slots past what the schedule can use are capped, so a huge delay
// cannot make the generation long.
PrrPlan prr_plan(const GeneratorInput& in);
// One hop of a segment: block_round_time of min(B, p) blocks (a segment is B / p blocks when
// B > p).
double prr_slot_time(const GeneratorInput& in);

// Fig. 7 lines 1-6 on slots: the pre-steps k_i of position i (k_{p-1} = 0; k_i = k_{i+1} + 1 when
// the last position arrives at least k_{i+1} + 1 slots after position i + 1).
std::vector<int> prr_pre_steps(const PrrPlan& plan);
// Fig. 7 lines 7-13 (fixed, see prr_allreduce.cpp): the start position of segment j, the first i
// with i + k_i >= j.
std::vector<int> prr_segment_starts(const PrrPlan& plan);

// The transfer slots of prr_allreduce.cpp: segment j (a non-empty chunk of `blocks`) makes hop h
// in slot tau[j] + h, from position start[j] + h (mod p); tau[j] = -1 for an empty chunk.
struct PrrLanes {
  std::vector<int> start;
  std::vector<long> tau;
};
PrrLanes prr_lanes(const PrrPlan& plan, int blocks);

}  // namespace papcoll
