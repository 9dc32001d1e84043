// The plan of the arrival-aware broadcast (arrival_bcast.cpp, docs/circulant.md "Arrival-aware
// broadcast and all-gatherv"): which ranks are early and run the circulant broadcast among
// themselves, and which rank serves each late rank the whole buffer when it arrives. Every rank
// derives the same plan from the arrival slots (arrival_slots.hpp) in O(p log p).
#pragma once

#include <cstdint>
#include <vector>

#include "schedule/registry.hpp"

namespace papcoll {

struct ArrivalBcastPlan {
  int blocks = 1;
  // The early ranks in the circulant's virtual order: the root first, then the others by
  // (rank - root) mod p, so that with every rank early this is circulant_bcast.cpp's schedule.
  std::vector<int> members;
  std::vector<int> virt;  // rank -> its index in members, -1 for a late rank
  // Late rank i (arrival order) receives all blocks from serves[i].from in round
  // first_serve_round + i; the server is an early rank or an earlier late rank.
  struct Serve {
    int from;
    int to;
  };
  std::vector<Serve> serves;
  int64_t first_serve_round = 0;
};

// The slot unit (one round of the circulant, alpha + beta bytes / blocks) and one whole-buffer
// message in slots, at least 1.
double arrival_bcast_unit(const GeneratorInput& in);
int64_t arrival_bcast_whole_slots(const GeneratorInput& in);

ArrivalBcastPlan arrival_bcast_plan(const GeneratorInput& in);

}  // namespace papcoll
