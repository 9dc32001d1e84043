// papcoll-drop-in-ab: what the interposition library's wrapper costs a balanced program
// (docs/intercept.md "No tax on balanced calls"), in one process so that the
// machine's noise hits both sides alike. Run it under LD_PRELOAD=libpapcoll-intercept.so: every
// round runs a block of CALLS calls of the MPI_ function (through the wrapper, with whatever
// PAPCOLL_* the environment sets) and a block of the PMPI_ function (the MPI library's own), in
// an order alternated per round, between barriers. Rank 0 prints both median per-call times on
// stderr and the median of the per-round ratios wrapped/native on stdout.
//
//   papcoll-drop-in-ab OP COUNT ROUNDS CALLS
//   OP: allreduce | reduce | bcast (MPI_DOUBLE, MPI_SUM, root 0)
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

enum class Op { allreduce, reduce, bcast };

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Seconds per call of the slowest rank.
double block(Op op, int count, int calls, bool wrapped, std::vector<double>& x,
             std::vector<double>& y, int* bad) {
  PMPI_Barrier(MPI_COMM_WORLD);
  const double t0 = PMPI_Wtime();
  for (int i = 0; i < calls; ++i) {
    int rc = MPI_SUCCESS;
    switch (op) {
      case Op::allreduce:
        rc = wrapped
                 ? MPI_Allreduce(x.data(), y.data(), count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD)
                 : PMPI_Allreduce(x.data(), y.data(), count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        break;
      case Op::reduce:
        rc = wrapped
                 ? MPI_Reduce(x.data(), y.data(), count, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD)
                 : PMPI_Reduce(x.data(), y.data(), count, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        break;
      case Op::bcast:
        rc = wrapped ? MPI_Bcast(x.data(), count, MPI_DOUBLE, 0, MPI_COMM_WORLD)
                     : PMPI_Bcast(x.data(), count, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        break;
    }
    *bad |= rc != MPI_SUCCESS;
  }
  const double dt = (PMPI_Wtime() - t0) / calls;
  double slowest = 0;
  PMPI_Allreduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  Op op = Op::allreduce;
  const bool known_op = argc == 5 &&
                        (std::strcmp(argv[1], "allreduce") == 0 ||
                         std::strcmp(argv[1], "reduce") == 0 || std::strcmp(argv[1], "bcast") == 0);
  const int count = argc == 5 ? std::atoi(argv[2]) : 0;
  const int rounds = argc == 5 ? std::atoi(argv[3]) : 0;
  const int calls = argc == 5 ? std::atoi(argv[4]) : 0;
  if (!known_op || count < 1 || rounds < 1 || calls < 1) {
    if (rank == 0)
      std::fprintf(stderr, "usage: papcoll-drop-in-ab allreduce|reduce|bcast COUNT ROUNDS CALLS\n");
    MPI_Finalize();
    return 2;
  }
  if (std::strcmp(argv[1], "reduce") == 0) op = Op::reduce;
  if (std::strcmp(argv[1], "bcast") == 0) op = Op::bcast;
  std::vector<double> x(static_cast<size_t>(count), 1.0), y(static_cast<size_t>(count), 0.0);
  int bad = 0;
  block(op, count, calls, true, x, y, &bad);  // warm-up (papcoll's first call on the communicator)
  block(op, count, calls, false, x, y, &bad);
  std::vector<double> wrapped, native, ratio;
  for (int r = 0; r < rounds; ++r) {
    double w = 0, n = 0;
    if (r % 2 == 0) {
      w = block(op, count, calls, true, x, y, &bad);
      n = block(op, count, calls, false, x, y, &bad);
    } else {
      n = block(op, count, calls, false, x, y, &bad);
      w = block(op, count, calls, true, x, y, &bad);
    }
    wrapped.push_back(w);
    native.push_back(n);
    ratio.push_back(w / n);
  }
  if (rank == 0) {
    std::fprintf(stderr, "wrapped %.4f us/call, native %.4f us/call (medians of %d blocks)\n",
                 median(wrapped) * 1e6, median(native) * 1e6, rounds);
    std::printf("%.4f\n", median(ratio));
  }
  MPI_Finalize();
  return bad ? 1 : 0;
}
