// An unmodified MPI program for run_history_sites.py: balanced loops that interleave several
// call sites of the arrival history (docs/intercept.md, "No tax on balanced calls"): a 64 KiB
// MPI_Allreduce, a 64 KiB MPI_Reduce whose root moves every iteration, a 256 KiB MPI_Allreduce
// every third iteration, and on a duplicate communicator a 128 KiB MPI_Allreduce every fifth.
// Under LD_PRELOAD with `auto`, each site's quiet calls are handed out ahead by the monitor and
// counted before any other call reaches it (intercept.cpp handed_out_quiet_call,
// flush_quiet_calls); if two ranks ever decided differently, the measured exchange would be
// missing on one side (a deadlock the runner's timeout reports) or the call counts would differ.
// Every result is checked exactly. Prints "history_sites CALLS" with the calls it made per rank.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, p = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm dup = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 600;
  long calls = 0;
  int wrong = 0;
  auto allreduce = [&](MPI_Comm comm, int n, int it) {
    std::vector<int> in(static_cast<size_t>(n)), out(static_cast<size_t>(n), -1);
    for (int i = 0; i < n; ++i) in[i] = (rank + 1) * (i % 89) + it;
    MPI_Allreduce(in.data(), out.data(), n, MPI_INT, MPI_SUM, comm);
    for (int i = 0; i < n; ++i)
      if (out[i] != p * (p + 1) / 2 * (i % 89) + p * it) ++wrong;
    ++calls;
  };
  for (int it = 0; it < iterations; ++it) {
    allreduce(MPI_COMM_WORLD, 16384, it);  // 64 KiB
    const int root = it % p, n = 16384;
    std::vector<int> in(n), out(n, -1);
    for (int i = 0; i < n; ++i) in[i] = (rank + 2) * (i % 61) - it;
    MPI_Reduce(in.data(), out.data(), n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
    ++calls;
    if (rank == root)
      for (int i = 0; i < n; ++i)
        if (out[i] != (p * (p + 1) / 2 + p) * (i % 61) - p * it) ++wrong;
    if (it % 3 == 0) allreduce(MPI_COMM_WORLD, 65536, it);  // 256 KiB
    if (it % 5 == 0) allreduce(dup, 32768, it);             // 128 KiB on another communicator
  }
  MPI_Comm_free(&dup);
  if (wrong != 0) std::fprintf(stderr, "history_sites: rank %d: %d wrong elements\n", rank, wrong);
  if (rank == 0) std::printf("history_sites %ld\n", calls);
  MPI_Finalize();
  return wrong == 0 ? 0 : 1;
}
