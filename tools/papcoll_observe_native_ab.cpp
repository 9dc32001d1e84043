// papcoll-observe-native-ab: what the straggler report and the armed watchdog cost an unmodified
// program's MPI_Allreduce under LD_PRELOAD (issue #20 item 4, docs/report-format.md "Cost"), in
// one process so that the machine's noise hits both configurations alike. Run it under
// LD_PRELOAD=libpapcoll-intercept.so with PAPCOLL_REPORT and PAPCOLL_TIMEOUT set: every round
// runs a block of CALLS 8-byte MPI_Allreduce calls (MPI_DOUBLE, MPI_SUM) observed, and one inside
// papcoll::observe::Unobserved, the scope in which the interposition library observes nothing
// (its first test, the same one it makes with both off), in an order alternated per round,
// between barriers. Rank 0 prints each configuration's median per-call time, fastest block and
// 10th percentile, and the median of the per-round ratios on/off.
//
//   papcoll-observe-native-ab ROUNDS CALLS
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "observe/call_watch.hpp"

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double block(int calls, bool observed, int* bad) {
  double x = 1, y = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  if (observed) {
    for (int i = 0; i < calls; ++i)
      *bad |= MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS;
  } else {
    const papcoll::observe::Unobserved off;
    for (int i = 0; i < calls; ++i)
      *bad |= MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS;
  }
  const double dt = (MPI_Wtime() - t0) / calls;
  double slowest = 0;
  MPI_Reduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  return slowest * 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc != 3) {
    if (rank == 0) std::fprintf(stderr, "usage: papcoll-observe-native-ab ROUNDS CALLS\n");
    MPI_Finalize();
    return 2;
  }
  const int rounds = std::atoi(argv[1]), calls = std::atoi(argv[2]);
  int bad = 0;
  block(1000, true, &bad);  // warm-up: the communicator's observer and board are made
  block(1000, false, &bad);
  std::vector<double> on, off, ratio;
  for (int r = 0; r < rounds; ++r) {
    double t_on = 0, t_off = 0;
    if (r % 2 == 0) {
      t_on = block(calls, true, &bad);
      t_off = block(calls, false, &bad);
    } else {
      t_off = block(calls, false, &bad);
      t_on = block(calls, true, &bad);
    }
    on.push_back(t_on);
    off.push_back(t_off);
    ratio.push_back(t_on / t_off);
  }
  if (rank == 0) {
    for (auto [name, v] : {std::pair{"off", off}, std::pair{"on", on}}) {
      std::vector<double> s = v;
      std::sort(s.begin(), s.end());
      std::printf("%s %.4f us/call (median of %d blocks; fastest block %.4f, 10th percentile %.4f)\n",
                  name, median(v), rounds, s[0], s[s.size() / 10]);
    }
    std::printf("on/off %.4f (median of per-round ratios)\n", median(ratio));
  }
  MPI_Finalize();
  return bad;
}
