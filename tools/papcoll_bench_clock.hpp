// The clock and the sleep of papcoll-bench's emulated computation phase.
//
// With a real MPI they are std::chrono::steady_clock and std::this_thread::sleep_until. Under
// SimGrid SMPI (PAPCOLL_SMPI, docs/smpi.md) both must be simulated: steady_clock reads the host's
// real time, which has nothing to do with simulated time (a simulated sleep takes no real time,
// simulating the other ranks takes real time but no simulated time), so a deadline measured on it
// would put the arrivals wherever the simulator happened to be. MPI_Wtime is SMPI's simulated
// clock and usleep (which smpicxx maps to smpi_usleep) sleeps exactly in simulated time.
#pragma once

#include <chrono>

#ifdef PAPCOLL_SMPI
#include <mpi.h>
#include <unistd.h>
#else
#include <thread>
#endif

namespace papcoll_bench {

#ifdef PAPCOLL_SMPI

struct BenchClock {
  using duration = std::chrono::duration<double>;
  using rep = duration::rep;
  using period = duration::period;
  using time_point = std::chrono::time_point<BenchClock>;
  static constexpr bool is_steady = true;
  static time_point now() { return time_point(duration(MPI_Wtime())); }
};

inline void sleep_until(BenchClock::time_point deadline) {
  const double left_us = (deadline - BenchClock::now()).count() * 1e6;
  if (left_us >= 0.5) usleep(static_cast<useconds_t>(left_us + 0.5));
}

#else

using BenchClock = std::chrono::steady_clock;

inline void sleep_until(BenchClock::time_point deadline) {
  std::this_thread::sleep_until(deadline);
}

#endif

}  // namespace papcoll_bench
