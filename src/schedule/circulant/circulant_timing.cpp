#include "schedule/circulant/circulant_timing.hpp"

#include <chrono>

#include "schedule/circulant/circulant_recv.hpp"
#include "schedule/circulant/circulant_send.hpp"
#include "schedule/circulant/circulant_skips.hpp"

namespace papcoll::circulant {

const char* send_impl_name(SendImpl impl) { return impl == SendImpl::logp ? "logp" : "reference"; }

TimingResult time_circulant(int from, int to, SendImpl impl, int step) {
  using clock = std::chrono::steady_clock;
  TimingResult res;
  res.impl = impl;
  res.from = from;
  res.to = to;
  res.step = step < 1 ? 1 : step;
  double per_proc_sum = 0;
  for (int p = from < 1 ? 1 : from; p <= to; p += res.step) {
    const Skips sk = make_skips(p);
    uint64_t sum = 0;
    int rb[kMaxQ + 1], sb[kMaxQ + 1];
    const auto t0 = clock::now();
    for (int r = 0; r < p; ++r) {
      // Each processor's own work in Algorithm 1: its receive and its send schedule.
      recv_schedule(sk, r, rb);
      if (impl == SendImpl::logp)
        send_schedule(sk, r, sb);
      else
        send_schedule_reference(sk, r, sb);
      for (int k = 0; k < sk.q; ++k) sum = sum * 31 + static_cast<uint64_t>(rb[k] * 64 + sb[k]);
    }
    const double s = std::chrono::duration<double>(clock::now() - t0).count();
    res.checksum ^= sum;
    res.total_s += s;
    per_proc_sum += s / p;
    ++res.p_count;
    res.processors += p;
  }
  res.per_proc_us = res.p_count ? per_proc_sum / res.p_count * 1e6 : 0;
  return res;
}

}  // namespace papcoll::circulant
