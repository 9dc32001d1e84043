// Checker of the four correctness conditions of Träff's circulant broadcast schedules
// (arXiv 2312.11236, Sec. 2.1) over all processors of a given p, and the same over a range of p.
// Used by tests/unit/schedule/circulant/circulant_*_test.cpp and `papcoll-sched verify-circulant`.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace papcoll::circulant {

struct CheckStats {
  int64_t p_checked = 0;
  int64_t processors = 0;  // receive + send schedules computed and checked
  int max_calls = 0;       // most recursive DFS-blocks calls of one receive schedule
  int max_violations = 0;  // most send-schedule violations of one processor
  int64_t total_violations = 0;
  int worst_calls_p = 0, worst_violations_p = 0;  // a p where the maxima were first seen
};

struct CheckResult {
  bool ok = true;
  std::string error;  // first failed condition, with p, processor and round
  CheckStats stats;
};

// For every processor r of p: baseblock and schedule values in range, and
//  (1) recvblock_r[k] = sendblock_f[k] for f = (r - skip[k]) mod p;
//  (2) sendblock_r[k] = recvblock_t[k] for t = (r + skip[k]) mod p (so the O(log p) send
//      schedule equals the reference definition);
//  (3) the q receive values are b_r and the q-1 values of {-q..-1} other than b_r - q (the root:
//      all of {-q..-1});
//  (4) r sends only what it has: b_r - q (received last phase) or a block received in an earlier
//      round of the phase; the root sends block k in round k.
CheckResult check_circulant(int p);

// The conditions alone, for given tables recv[r*q + k] and send[r*q + k] of all p processors
// (check_circulant computes them with recv_schedule and send_schedule); stats stay zero.
CheckResult check_tables(int p, std::span<const int8_t> recv, std::span<const int8_t> send);

// check_circulant for every p in [from, to] on `threads` threads (0: hardware concurrency);
// stops at the first failure (the smallest failing p is reported when several threads fail).
CheckResult check_circulant_range(int from, int to, int threads = 0);

}  // namespace papcoll::circulant
