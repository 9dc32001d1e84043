// An unmodified MPI program for run_history_sampling.py: 40 balanced MPI_Allreduce calls of
// 4 MiB, then 40 where rank 1 is 30 ms late on every call. Under LD_PRELOAD with `auto`, the
// history (sampled: docs/intercept.md, "No tax on balanced calls") must see the late rank within
// PAPCOLL_HISTORY_SAMPLE calls and hand the calls to an imbalance-aware algorithm; every result
// must be exact on every path.
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, p = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  const int n = 1 << 20;
  std::vector<int> in(n), out(n);
  int wrong = 0;
  for (int it = 0; it < 80; ++it) {
    if (it >= 40 && rank == 1) std::this_thread::sleep_for(std::chrono::milliseconds(30));
    for (int i = 0; i < n; ++i) in[i] = (rank + 1) * (i % 97) + it;
    MPI_Allreduce(in.data(), out.data(), n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < n; ++i)
      if (out[i] != p * (p + 1) / 2 * (i % 97) + p * it) ++wrong;
  }
  if (wrong != 0)
    std::fprintf(stderr, "history_sampling: rank %d: %d wrong elements\n", rank, wrong);
  MPI_Finalize();
  return wrong == 0 ? 0 : 1;
}
