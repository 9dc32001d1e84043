// Träff's circulant broadcast and all-to-all broadcast (arXiv 2312.11236, Algorithms 1 and 2) on a
// group of ranks instead of the whole communicator, for the arrival-aware generators
// (arrival_bcast.cpp, arrival_allgatherv.cpp): the ranks that are there run the round-optimal
// schedule among themselves while the late ones compute.
//
// The group is g ranks, virtual processor v being real rank members[v]; the origins are the
// virtual processors whose blocks are broadcast (the root alone for a broadcast, every member for
// an all-gatherv, a wave of late ranks in the all-gatherv's later stages). Origin o is the root of
// its own instance of Algorithm 1: processor v is virtual processor (v - o) mod g of it, receives
// recvblock_{(v-o) mod g}[k] + offset from v - skip[k] and sends sendblock_{(v-o) mod g}[k] +
// offset (= what v + skip[k] receives, correctness condition 2) to v + skip[k], nothing to the
// origin itself. All origins' blocks of a round travel in one message, as in Algorithm 2. Each
// rank computes only its own receive and send schedules, one pair per origin, O(log g) each;
// where every member is an origin the messages are rules instead (circulant_message.hpp), O(g +
// n + log g) in all.
// With the whole communicator as the group (members[v] = (v + root) mod p) this is exactly
// circulant_bcast.cpp's schedule, and with every rank an origin circulant_allgatherv.cpp's.
#pragma once

#include <cstdint>
#include <span>

#include "schedule/schedule.hpp"
#include "schedule/schedule_sink.hpp"

namespace papcoll::circulant {

// One origin of a group schedule: its virtual processor and its blocks [first, first + count).
// An origin with fewer blocks than the largest (n) sends block j as block min(j, count - 1), the
// monotone capping of Algorithm 2 (circulant_allgatherv.cpp); count 0 sends nothing.
struct GroupOrigin {
  int v;
  BlockRun blocks;
};

// Rounds of a group schedule with n blocks per origin: n - 1 + ceil(log2 g) (0 for g = 1).
int group_rounds(int g, int n);

// Emits the ops of the group member at virtual processor v (real rank members[v], which `out`
// must want) in rounds first_round .. first_round + group_rounds(g, n) - 1, n the largest block
// count of the origins. Origins in ascending v. Block ids of a message ascend when the origins'
// blocks do (ids_ascend); otherwise they are sorted first.
void emit_group(std::span<const int> members, int v, std::span<const GroupOrigin> origins,
                int64_t first_round, bool ids_ascend, ScheduleSink& out);

}  // namespace papcoll::circulant
