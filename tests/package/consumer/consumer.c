/* Uses the installed papcoll: an all-reduce and a broadcast, checked exactly. */
#include <mpi.h>
#include <papcoll/papcoll.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, ok = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int v[100], sum[100];
  for (int i = 0; i < 100; ++i) v[i] = rank + i;
  if (papcoll_allreduce(v, sum, 100, MPI_INT, MPI_SUM, MPI_COMM_WORLD, NULL) != PAPCOLL_SUCCESS)
    ok = 0;
  for (int i = 0; i < 100; ++i) ok = ok && sum[i] == size * (size - 1) / 2 + size * i;
  int b[10];
  for (int i = 0; i < 10; ++i) b[i] = rank == 0 ? 7 * i : -1;
  if (papcoll_bcast(b, 10, MPI_INT, 0, MPI_COMM_WORLD, NULL) != PAPCOLL_SUCCESS) ok = 0;
  for (int i = 0; i < 10; ++i) ok = ok && b[i] == 7 * i;
  int all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (rank == 0) printf("consumer: %s\n", all ? "ok" : "FAILED");
  MPI_Finalize();
  return all ? 0 : 1;
}
