// What the arrival-aware broadcast and all-gatherv (arrival_bcast.cpp, arrival_allgatherv.cpp)
// read of an arrival pattern: each rank's arrival as a whole number of time units (one round of
// the circulant schedule) after the earliest rank, and the ranks in that order. Everything they
// derive is a function of these slots, so the slots (with the model's integer parameters) are
// their schedule-cache key.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "schedule/registry.hpp"

namespace papcoll {

struct ArrivalSlots {
  std::vector<int64_t> slot;  // per rank, in [0, kMaxSlot]
  std::vector<int> order;     // ranks by (slot, rank)
};

// Slots past this are all "very late": capped so that sums over p ranks stay far inside int64.
inline constexpr int64_t kMaxArrivalSlot = int64_t{1} << 30;

// Slots of in.arrivals in units of `unit` seconds (all 0 when in.arrivals is empty).
ArrivalSlots arrival_slots(const GeneratorInput& in, double unit);

// The slots as key bytes, followed by `params` (the integer model parameters a generator reads).
std::string arrival_slots_key(const ArrivalSlots& s, const std::vector<int64_t>& params);

}  // namespace papcoll
