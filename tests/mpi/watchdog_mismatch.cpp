// A program whose ranks disagree on one call (run_watchdog_mismatch.py runs it with
// PAPCOLL_TIMEOUT and PAPCOLL_TIMEOUT_ACTION=abort and reads the watchdog's line):
//   algorithm   papcoll_allreduce: the last rank names "ring", the others "native"
//   root        papcoll_bcast of 1 MiB: rank 0 names root 0, the others root 1
//   first       the same disagreement on the algorithm on a communicator's first call
// Each rank prints when it entered the call (steady clock, seconds) and, if its call returns,
// its code; then it waits in MPI_Barrier, so that the job ends only through the watchdog's abort.
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "papcoll/papcoll.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, p = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  const std::string mode = argc > 1 ? argv[1] : "algorithm";
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  papcoll_options o;
  papcoll_options_init(&o);
  std::vector<int> x(1 << 18, rank + 1), y(1 << 18, 0);
  if (mode != "first") {  // a good call first: the mismatch is on a later call
    o.algorithm = "native";
    papcoll_allreduce(x.data(), y.data(), 16, MPI_INT, MPI_SUM, comm, &o);
  }
  const double t =
      std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  std::printf("rank %d enters the call at %.6f\n", rank, t);
  std::fflush(stdout);
  int rc;
  if (mode == "root") {
    o.algorithm = "binomial";
    rc = papcoll_bcast(x.data(), 1 << 18, MPI_INT, rank == 0 ? 0 : 1, comm, &o);
  } else {
    o.algorithm = rank == p - 1 ? "ring" : "native";
    rc = papcoll_allreduce(x.data(), y.data(), 1 << 18, MPI_INT, MPI_SUM, comm, &o);
  }
  std::printf("rank %d returned %d: %s\n", rank, rc, papcoll_last_error());
  std::fflush(stdout);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return 0;
}
