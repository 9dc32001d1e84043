// The round structure of Algorithms 1 and 2 (arXiv 2312.11236): what the circulant generators for
// bcast and allgatherv share.
#pragma once

#include "schedule/circulant/circulant_skips.hpp"

namespace papcoll::circulant {

// The rounds of the n-block broadcast (Algorithm 1): x virtual rounds (no communication) make
// x + n - 1 + q a multiple of q, then n - 1 + q real rounds follow. Real round t is round
// i = x + t of phase j = i / q, index k = i mod q; a schedule value v stands for block
// v + j*q - x: negative blocks are not sent, blocks above n - 1 are sent as n - 1.
struct Round {
  int k;       // which skip and which schedule entry
  int offset;  // added to schedule values
};

inline int virtual_rounds(int q, int n) { return (q - (n - 1) % q) % q; }
inline int real_rounds(int q, int n) { return n - 1 + q; }
inline Round round_of(int q, int n, int t) {
  const int i = virtual_rounds(q, n) + t;
  return {i % q, i / q * q - virtual_rounds(q, n)};
}

}  // namespace papcoll::circulant
