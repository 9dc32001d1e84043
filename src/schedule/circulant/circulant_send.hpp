// Send schedule of the circulant broadcast (arXiv 2312.11236, Sec. 2.4): the block sendblock[k]
// processor r sends to (r + skip[k]) mod p in round k of every phase, relative to the phase like
// recvblock (circulant_recv.hpp). Two ways to compute it, which must agree exactly:
//  - send_schedule: Algorithms 7-9, O(log p) time and space per processor; a bounded number of
//    rounds ("violations", at most 4 observed, the paper proves 4) fall back to the receive
//    schedule of the to-processor;
//  - send_schedule_reference: sendblock_r[k] = recvblock_{(r+skip[k]) mod p}[k] by q receive
//    schedules, O(log^2 p), kept as the definition and for timing (the paper's "old" column).
#pragma once

#include "schedule/circulant/circulant_skips.hpp"

namespace papcoll::circulant {

// Fills sendblock[0..q-1]; returns the number of violations (receive schedules computed).
int send_schedule(const Skips& s, int r, int* sendblock);

void send_schedule_reference(const Skips& s, int r, int* sendblock);

}  // namespace papcoll::circulant
