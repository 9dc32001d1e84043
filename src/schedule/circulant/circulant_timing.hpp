// Timing of the circulant schedule computations as in Table 3 of arXiv 2312.11236: for every p of
// a range, the receive and send schedules of all p processors are computed; reported are the
// total time and the time per processor averaged over the p of the range. Single-threaded.
#pragma once

#include <cstdint>

namespace papcoll::circulant {

enum class SendImpl {
  logp,       // Algorithms 7-9 (O(log p) per processor)
  reference,  // sendblock_r[k] = recvblock_{r+skip[k]}[k] (O(log^2 p) per processor)
};

struct TimingResult {
  SendImpl impl = SendImpl::logp;
  int from = 0, to = 0, step = 1;
  int64_t p_count = 0;     // number of p timed
  int64_t processors = 0;  // schedules computed (sum of p)
  double total_s = 0;      // all receive and send schedules of all p
  double per_proc_us = 0;  // mean over p of (time for p) / p, in microseconds
  uint64_t checksum = 0;   // of all computed blocks, so nothing is optimised away
};

// Times every step-th p of [from, to] (step 1: all).
TimingResult time_circulant(int from, int to, SendImpl impl, int step = 1);

const char* send_impl_name(SendImpl impl);

}  // namespace papcoll::circulant
