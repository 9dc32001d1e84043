#include "prediction/clock_sync.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <thread>

namespace papcoll::prediction {

namespace {

// The offset is known to within the width of its interval; below this it is as good as the
// clock resolution and the message latency of a shared-memory or low-latency network allow.
constexpr double kGoodWidth = 40e-6;
// Sampling goes on (beyond the requested minimum) while the interval is wider, up to this many
// times the minimum or kSoftSeconds; if the interval is still wider than kFairWidth then, up to
// samples x kHardSecondsPerSample (at most kHardSeconds): ranks that share cores get descheduled
// in the middle of round trips, and under heavy load good samples are rare.
constexpr int kMaxFactor = 16;
constexpr double kSoftSeconds = 0.25;
constexpr double kFairWidth = 1e-3;
constexpr double kHardSecondsPerSample = 0.1;
constexpr double kHardSeconds = 1.0;

// Completes `req` polling with sched_yield in between instead of MPI's busy wait: two ranks that
// share a core then hand it to each other at once, and a round trip takes microseconds instead of
// a scheduler time slice.
MpiStatus wait_yielding(MPI_Request* req, MPI_Status* st) {
#ifdef PAPCOLL_SMPI
  // Under SimGrid SMPI (docs/smpi.md) every failed MPI_Test advances the simulated clock by a
  // growing amount, so polling would inflate the round trips; MPI_Wait is exact there.
  PAPCOLL_MPI_TRY(MPI_Wait(req, st), "MPI_Wait");
  return {};
#endif
  for (;;) {
    int done = 0;
    PAPCOLL_MPI_TRY(MPI_Test(req, &done, st), "MPI_Test");
    if (done) return {};
    std::this_thread::yield();
  }
}

MpiStatus recv(void* buf, int n, int peer, int tag, MPI_Comm comm, MPI_Status* st) {
  MPI_Request r;
  PAPCOLL_MPI_TRY(MPI_Irecv(buf, n, MPI_DOUBLE, peer, tag, comm, &r), "MPI_Irecv");
  return wait_yielding(&r, st);
}

MpiStatus send(const void* buf, int n, int peer, int tag, MPI_Comm comm) {
  MPI_Request r;
  PAPCOLL_MPI_TRY(MPI_Isend(buf, n, MPI_DOUBLE, peer, tag, comm, &r), "MPI_Isend");
  return wait_yielding(&r, MPI_STATUS_IGNORE);
}

}  // namespace

MpiStatus sync_clocks(MPI_Comm comm, int samples, int tag, const std::function<double()>& now,
                      ClockSync* out) {
  int rank = 0, p = 1;
  PAPCOLL_MPI_TRY(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  PAPCOLL_MPI_TRY(MPI_Comm_size(comm, &p), "MPI_Comm_size");
  ClockSync s;
  if (rank == 0) {
    // Serve pings in arrival order until every other rank said it is done. A ping is {t_send,
    // more}; the answer is rank 0's clock.
    int done = 0;
    while (done < p - 1) {
      double ping[2] = {0, 0};
      MPI_Status st;
      if (MpiStatus r = recv(ping, 2, MPI_ANY_SOURCE, tag, comm, &st); !r.ok()) return r;
      if (ping[1] == 0) {
        ++done;
        continue;
      }
      const double t0 = now();
      if (MpiStatus r = send(&t0, 1, st.MPI_SOURCE, tag, comm); !r.ok()) return r;
    }
  } else {
    // Rank 0 read t0 after this rank sent at t1 and before it received at t2 (real time), so
    // with offset = this clock - rank 0's clock: t1 - t0 <= offset <= t2 - t0. Every sample
    // narrows the interval; a round trip slowed down in one direction still gives a tight bound
    // on the other side. The offset is the middle of the intersection.
    double lo = -std::numeric_limits<double>::infinity();
    double hi = std::numeric_limits<double>::infinity();
    double best = std::numeric_limits<double>::infinity();
    const double start = now();
    const double hard = std::min(kHardSeconds, kHardSecondsPerSample * samples);
    for (int i = 0;; ++i) {
      if (i >= samples) {
        const double width = hi - lo, spent = now() - start;
        if (width <= kGoodWidth) break;
        if ((i >= samples * kMaxFactor || spent > kSoftSeconds) && width <= kFairWidth) break;
        if (spent > hard) break;
      }
      double ping[2] = {now(), 1};
      double t0 = 0;
      if (MpiStatus r = send(ping, 2, 0, tag, comm); !r.ok()) return r;
      if (MpiStatus r = recv(&t0, 1, 0, tag, comm, MPI_STATUS_IGNORE); !r.ok()) return r;
      const double t2 = now();
      lo = std::max(lo, ping[0] - t0);
      hi = std::min(hi, t2 - t0);
      best = std::min(best, t2 - ping[0]);
    }
    // lo <= hi unless the clocks drift (or jump) during the measurement; then the middle of the
    // two bounds is still the best guess.
    s.offset = 0.5 * (lo + hi);
    s.width = std::fabs(hi - lo);
    s.rtt = best;
    const double bye[2] = {0, 0};
    if (MpiStatus r = send(bye, 2, 0, tag, comm); !r.ok()) return r;
  }
  double ref = rank == 0 ? now() : 0.0;
  PAPCOLL_MPI_TRY(MPI_Bcast(&ref, 1, MPI_DOUBLE, 0, comm), "MPI_Bcast");
  s.reference = ref;
  *out = s;
  return {};
}

}  // namespace papcoll::prediction
