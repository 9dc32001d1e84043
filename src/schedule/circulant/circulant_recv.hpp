// Receive schedule of the circulant broadcast (arXiv 2312.11236, Sec. 2.3, Algorithms 5 and 6):
// for processor r (root 0), the block recvblock[k] it receives in round k of every phase, relative
// to the phase (phase j receives block recvblock[k] + j*q; negative blocks are not communicated).
// O(log p) time and space per processor, no communication.
#pragma once

#include "schedule/circulant/circulant_skips.hpp"

namespace papcoll::circulant {

// Fills recvblock[0..rounds-1] (rounds <= q; the depth-first search finds the blocks in round
// order, so a prefix costs less) and returns the number of recursive calls of DFS-blocks, which
// Proposition 1 bounds by O(q). Values are in [-q, q-1]: exactly one round carries the baseblock
// b (>= 0), the others the q-1 values of {-q, ..., -1} other than b - q (correctness condition 3;
// for the root all q values are negative and nothing is ever sent to it).
int recv_schedule(const Skips& s, int r, int* recvblock, int rounds);
inline int recv_schedule(const Skips& s, int r, int* recvblock) {
  return recv_schedule(s, r, recvblock, s.q);
}

}  // namespace papcoll::circulant
