// Resident memory over many `auto` all-reduce calls, each with a new random arrival pattern
// (agreed: the same on every rank), spread over COMMS communicators: the schedule caches of a
// process share one bound (schedule/schedule_cache.hpp, PAPCOLL_SCHEDULE_CACHE_BYTES, 64 MiB by
// default) and cache a pattern only on its second sighting, so patterns that never repeat leave
// nothing behind. Prints each rank's VmRSS after a warm-up and at the end, and what the process's
// schedule caches hold, and exits non-zero when the largest growth reaches LIMIT_MIB or the caches
// hold CACHE_KIB or more (they should hold next to nothing: no pattern repeated).
//
//   cache_rss COMMS CALLS [LIMIT_MIB [CACHE_KIB]]
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "papcoll/papcoll.h"
#include "schedule/schedule_cache.hpp"

namespace {

double rss_mib() {
  std::ifstream f("/proc/self/status");
  for (std::string line; std::getline(f, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::atof(line.c_str() + 6) / 1024.0;
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, p = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  if (argc < 3) {
    if (rank == 0) std::fprintf(stderr, "usage: cache_rss COMMS CALLS [LIMIT_MIB]\n");
    MPI_Finalize();
    return 2;
  }
  const int ncomms = std::max(1, std::atoi(argv[1]));
  const long calls = std::max(1L, std::atol(argv[2]));
  const double limit = argc > 3 ? std::atof(argv[3]) : 64.0;
  const double cache_limit = argc > 4 ? std::atof(argv[4]) : 1e12;
  std::vector<MPI_Comm> comms(static_cast<size_t>(ncomms));
  for (MPI_Comm& c : comms) MPI_Comm_dup(MPI_COMM_WORLD, &c);
  constexpr int kCount = 4096;  // 32 KiB of doubles
  std::vector<double> x(kCount, 1.0), y(kCount, 0.0), arrivals(static_cast<size_t>(p));
  std::mt19937_64 rng(12345);  // the same sequence on every rank: agreed arrivals
  std::uniform_real_distribution<double> late(0.0, 0.01);
  papcoll_options o;
  papcoll_options_init(&o);
  o.arrivals = arrivals.data();
  o.arrivals_count = p;
  o.arrivals_agreed = 1;
  int bad = 0;
  auto run = [&](long n) {
    for (long i = 0; i < n; ++i) {
      for (double& a : arrivals) a = late(rng);
      bad |= papcoll_allreduce(x.data(), y.data(), kCount, MPI_DOUBLE, MPI_SUM,
                               comms[static_cast<size_t>(i % ncomms)], &o) != PAPCOLL_SUCCESS;
      bad |= y[0] != p;
    }
  };
  // Warm-up: every communicator's context, board and first schedules exist.
  run(std::min<long>(calls, 20L * ncomms));
  const double before = rss_mib();
  run(calls);
  const double after = rss_mib();
  const double growth = after - before;
  const double cached = static_cast<double>(papcoll::ScheduleCache::process_bytes()) / 1024.0;
  double most = 0, most_cached = 0;
  MPI_Reduce(&growth, &most, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&cached, &most_cached, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  int any_bad = 0;
  MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  std::printf("rank %d: %d communicators, %ld calls: VmRSS %.1f MiB after the warm-up, %.1f MiB "
              "at the end (%+.1f MiB); schedule caches %.1f KiB\n",
              rank, ncomms, calls, before, after, growth, cached);
  std::fflush(stdout);
  MPI_Barrier(MPI_COMM_WORLD);
  int ok = !any_bad && most < limit && most_cached < cache_limit;
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0)
    std::printf("cache_rss: largest growth %.1f MiB (limit %.0f MiB), schedule caches %.1f KiB "
                "(limit %.0f KiB), results %s: %s\n",
                most, limit, most_cached, cache_limit, any_bad ? "WRONG" : "exact",
                ok ? "passed" : "FAILED");
  for (MPI_Comm& c : comms) MPI_Comm_free(&c);
  MPI_Finalize();
  return ok ? 0 : 1;
}
