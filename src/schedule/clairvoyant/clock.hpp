// Exact time arithmetic shared by the three Clairvoyant implementations.
//
// Availability times only ever grow by the round time d (Listing 2 line 41), so we write every
// arrival as a_i = k_i * d + f_i with an integer k_i and the "fractional arrival time"
// 0 <= f_i < d of Sect. 5.4.3, and a process's availability as (k, f_i). Comparing (k, f) pairs
// lexicographically is exact, whereas adding d again and again in floating point is not: the
// three implementations (and every rank running them) must take the same decisions bit for bit.
#pragma once

#include <cstdint>
#include <vector>

#include "schedule/clairvoyant/clairvoyant.hpp"

namespace papcoll::clairvoyant {

struct Clock {
  std::vector<int64_t> k0;  // arrival round index of each process
  // The rank of each process's fractional arrival time (in [0, d)) among all of them, equal times
  // sharing a rank: only their order matters (make_clock).
  std::vector<double> f;

  // Availability (k, f[a]) of process a strictly before (k2, f[b]) of b, ties broken by rank:
  // the order of G and of the queues (Sect. 4.4: deterministic, no random tie breaking).
  bool before(int64_t ka, int a, int64_t kb, int b) const {
    if (ka != kb) return ka < kb;
    if (f[a] != f[b]) return f[a] < f[b];
    return a < b;
  }
  // Process c (at round index kc) is within one round time of the head h (at kh): t_c < t_h + d.
  // Strict, as in Listing 6 line 3: with <= a process exactly d after the head would share the
  // head's fractional time and break the doubled-index order of Sect. 5.4.3.
  bool in_window(int64_t kc, int c, int64_t kh, int h) const {
    if (kc != kh + 1) return kc <= kh;
    return f[c] < f[h];
  }
};

// Validates the instance (throws std::invalid_argument) and splits the arrivals. Arrivals are
// first shifted so the earliest is 0; only differences matter.
Clock make_clock(const Instance& in);

}  // namespace papcoll::clairvoyant
