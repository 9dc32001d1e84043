// A plain MPI program (no papcoll header) for the interposition library's error handling
// (docs/intercept.md): rank 1 passes a NULL sendbuf to an MPI_Allreduce that papcoll runs
// (PAPCOLL_ALLREDUCE=ring), so it takes part with the op's identity and the other ranks' results
// lack its data. Under the MPI signature papcoll's codes become the communicator's error handler:
//   return    MPI_ERRORS_RETURN: rank 1 gets MPI_ERR_ARG, the others MPI_ERR_OTHER, and a valid
//             call afterwards is exact
//   handler   a user error handler is called once on every rank with that class
//   fatal     MPI_ERRORS_ARE_FATAL (the default): the job aborts (run_errors.py checks papcoll's
//             message on stderr)
//   mismatch  no error: a 1 MiB MPI_Bcast (papcoll's on every rank), then an 8-byte
//             MPI_Allreduce that the ranks send different ways (run_errors.py sets
//             PAPCOLL_ALLREDUCE=ring on the last rank only): it hangs, and the watchdog's line
//             (PAPCOLL_TIMEOUT=2, abort) names the disagreement
// Prints "rank R: rc CLASS handler CALLS result OK|WRONG" and exits 0 when its own checks pass.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

int g_handler_calls = 0;
int g_handler_class = -1;

void handler(MPI_Comm*, int* code, ...) {
  ++g_handler_calls;
  MPI_Error_class(*code, &g_handler_class);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, p = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  const std::string mode = argc > 1 ? argv[1] : "return";
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  if (mode == "return") MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  if (mode == "handler") {
    MPI_Errhandler h;
    MPI_Comm_create_errhandler(handler, &h);
    MPI_Comm_set_errhandler(comm, h);
    MPI_Errhandler_free(&h);
  }
  if (mode == "mismatch") {
    std::vector<char> b(1 << 20, static_cast<char>(rank));
    MPI_Bcast(b.data(), static_cast<int>(b.size()), MPI_CHAR, 0, comm);
    double one = 1, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_DOUBLE, MPI_SUM, comm);
    std::printf("rank %d: the mismatched all-reduce returned %g\n", rank, sum);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
  }
  const int n = 1000;
  std::vector<int> x(n, rank + 1), y(n, -1);
  // The communicator's first call: rank 1's send buffer is NULL.
  const int rc = MPI_Allreduce(rank == 1 ? nullptr : x.data(), y.data(), n, MPI_INT, MPI_SUM, comm);
  int cls = MPI_SUCCESS;
  MPI_Error_class(rc, &cls);
  // The others' result: the sum over the ranks that did not err (rank 1 counted as 0).
  bool right = true;
  if (rank != 1)
    for (int i = 0; i < n && right; ++i) right = y[i] == p * (p + 1) / 2 - 2;
  const int want = rank == 1 ? MPI_ERR_ARG : MPI_ERR_OTHER;
  bool ok = cls == want && right;
  if (mode == "handler") ok = ok && g_handler_calls == 1 && g_handler_class == want;
  // A valid call afterwards is exact on every rank.
  std::fill(y.begin(), y.end(), -1);
  const int rc2 = MPI_Allreduce(x.data(), y.data(), n, MPI_INT, MPI_SUM, comm);
  bool after = rc2 == MPI_SUCCESS;
  for (int i = 0; i < n && after; ++i) after = y[i] == p * (p + 1) / 2;
  std::printf("rank %d: class %d (expected %d) handler %d result %s, then %s\n", rank, cls, want,
              g_handler_calls, right ? "OK" : "WRONG", after ? "exact" : "WRONG");
  std::fflush(stdout);
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return ok && after ? 0 : 1;
}
