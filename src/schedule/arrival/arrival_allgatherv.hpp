// The plan of the arrival-aware all-gatherv (arrival_allgatherv.cpp, docs/circulant.md
// "Arrival-aware broadcast and all-gatherv"): the early ranks, then the late ranks in waves, each
// wave's portions broadcast to everyone there and everything gathered before sent to the wave.
// Every rank derives the same plan from the arrival slots (arrival_slots.hpp) in O(p log p).
#pragma once

#include <cstdint>
#include <vector>

#include "schedule/registry.hpp"

namespace papcoll {

struct ArrivalAllgathervPlan {
  int blocks = 1;
  // The join order: the early ranks ascending, then the late ranks in arrival order. seq[0..k)
  // are early; wave w adds seq[first, last) to the group seq[0, first).
  std::vector<int> seq;
  std::vector<int> pos;  // rank -> index in seq
  int early = 0;
  struct Wave {
    int first = 0, last = 0;
    int64_t round = 0;       // first round of the circulant all-gatherv of the wave's portions
    int64_t bulk_round = 0;  // first round of the messages of everything gathered before
    int turns = 1;           // rounds of those messages: ceil(wave size / group size before)
  };
  std::vector<Wave> waves;
  // Late rank seq[first + i] of wave w gets everything of seq[0, first) from seq[holder] in round
  // bulk_round + i / first: holder = (first - early + i) mod first, rotating over the group.
  static int holder(const Wave& w, int early, int i) { return (w.first - early + i) % w.first; }
};

// The slot unit: one round of the circulant all-gatherv, alpha + beta bytes / n (n blocks per
// origin, a block of every origin per message).
double arrival_allgatherv_unit(const GeneratorInput& in);

ArrivalAllgathervPlan arrival_allgatherv_plan(const GeneratorInput& in);

}  // namespace papcoll
