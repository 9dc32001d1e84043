/* papcoll-loop: an unmodified MPI program that calls one collective back to back, the tight loop
 * of a balanced application (dot products in a solver), and prints the median time per call. It
 * links only MPI: run it plain and under LD_PRELOAD=libpapcoll-intercept.so to see what drop-in
 * use costs a balanced program (scripts/drop_in_tax.py, docs/intercept.md).
 *
 *   papcoll-loop OP BYTES CALLS REPEATS      OP: allreduce | reduce | bcast
 *
 * Every repeat runs CALLS calls between two barriers; rank 0 prints "OP BYTES median_us min_us"
 * over the repeats (per call). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int compare(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc != 5) {
    if (rank == 0)
      fprintf(stderr, "usage: papcoll-loop allreduce|reduce|bcast BYTES CALLS REPEATS\n");
    MPI_Finalize();
    return 2;
  }
  const char* op = argv[1];
  const long bytes = atol(argv[2]);
  const int calls = atoi(argv[3]), repeats = atoi(argv[4]);
  const int count = (int)(bytes / (long)sizeof(float)) > 0 ? (int)(bytes / (long)sizeof(float)) : 1;
  float* in = malloc(sizeof(float) * (size_t)count);
  float* out = malloc(sizeof(float) * (size_t)count);
  double* per_call = malloc(sizeof(double) * (size_t)repeats);
  if (in == NULL || out == NULL || per_call == NULL || calls < 1 || repeats < 1) {
    if (rank == 0) fprintf(stderr, "papcoll-loop: bad arguments or out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  for (int i = 0; i < count; ++i) in[i] = (float)(i % 7 + rank);
  const int which = strcmp(op, "allreduce") == 0 ? 0
                    : strcmp(op, "reduce") == 0  ? 1
                    : strcmp(op, "bcast") == 0   ? 2
                                                 : -1;
  if (which < 0) {
    if (rank == 0) fprintf(stderr, "papcoll-loop: unknown operation %s\n", op);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  for (int r = -1; r < repeats; ++r) { /* r = -1: warm-up */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    for (int c = 0; c < calls; ++c) {
      if (which == 0)
        MPI_Allreduce(in, out, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      else if (which == 1)
        MPI_Reduce(in, out, count, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD);
      else
        MPI_Bcast(rank == 0 ? in : out, count, MPI_FLOAT, 0, MPI_COMM_WORLD);
    }
    double t = (MPI_Wtime() - t0) / calls, slowest = 0;
    MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (r >= 0) per_call[r] = slowest;
  }
  if (rank == 0) {
    qsort(per_call, (size_t)repeats, sizeof(double), compare);
    printf("%s %ld %.3f %.3f\n", op, bytes, per_call[repeats / 2] * 1e6, per_call[0] * 1e6);
  }
  free(in);
  free(out);
  free(per_call);
  MPI_Finalize();
  return 0;
}
