// papcoll-observe-native-ab: what the straggler report and the armed watchdog cost an unmodified
// program's MPI_Allreduce under LD_PRELOAD (docs/report-format.md "Cost"), in
// one process so that the machine's noise hits both configurations alike. Run it under
// LD_PRELOAD=libpapcoll-intercept.so with PAPCOLL_REPORT and PAPCOLL_TIMEOUT set: every round
// runs a block of CALLS 8-byte MPI_Allreduce calls (MPI_DOUBLE, MPI_SUM) observed, and one inside
// papcoll::observe::Unobserved, the scope in which the interposition library observes nothing
// (its first test, the same one it makes with both off), in an order alternated per round,
// between barriers (the tool's own barrier and timing reduce unobserved). Rank 0 prints each
// configuration's median per-call time, fastest block and 10th percentile, and the median of the
// per-round ratios on/off. With `alternate`, each call is the all-reduce followed by a 16-byte
// MPI_Bcast from rank 0: a loop of two keys.
//
//   papcoll-observe-native-ab ROUNDS CALLS [alternate]
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "observe/call_watch.hpp"

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

bool g_alternate = false;  // each call: the all-reduce, then a 16-byte broadcast from rank 0

int step(double* x, double* y, int* v) {
  int rc = MPI_Allreduce(x, y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (g_alternate && rc == MPI_SUCCESS) rc = MPI_Bcast(v, 4, MPI_INT, 0, MPI_COMM_WORLD);
  return rc;
}

double block(int calls, bool observed, int* bad) {
  double x = 1, y = 0;
  int v[4] = {1, 2, 3, 4};
  {
    const papcoll::observe::Unobserved apparatus;
    MPI_Barrier(MPI_COMM_WORLD);
  }
  const double t0 = MPI_Wtime();
  if (observed) {
    for (int i = 0; i < calls; ++i) *bad |= step(&x, &y, v) != MPI_SUCCESS;
  } else {
    const papcoll::observe::Unobserved off;
    for (int i = 0; i < calls; ++i) *bad |= step(&x, &y, v) != MPI_SUCCESS;
  }
  const double dt = (MPI_Wtime() - t0) / calls;
  double slowest = 0;
  // The tool's own collectives are not part of the loop it measures: observed, this reduce
  // would end the all-reduce's steady state before every block (a key switch, then a first call
  // through the general path on cold caches; see docs/report-format.md "Cost").
  const papcoll::observe::Unobserved apparatus;
  MPI_Reduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  return slowest * 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc != 3 && !(argc == 4 && std::string(argv[3]) == "alternate")) {
    if (rank == 0)
      std::fprintf(stderr, "usage: papcoll-observe-native-ab ROUNDS CALLS [alternate]\n");
    MPI_Finalize();
    return 2;
  }
  g_alternate = argc == 4;
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
      std::printf(
          "%s %.4f us/call (median of %d blocks; fastest block %.4f, 10th percentile %.4f)\n", name,
          median(v), rounds, s[0], s[s.size() / 10]);
    }
    std::printf("on/off %.4f (median of per-round ratios)\n", median(ratio));
  }
  MPI_Finalize();
  return bad;
}
