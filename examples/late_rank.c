/* late_rank: a plain MPI program (no papcoll header) with a straggler, to run as it is and under
 * LD_PRELOAD=libpapcoll-intercept.so (docs/quickstart.md).
 *
 *   late_rank [CALLS [DELAY_MS [FLOATS]]]      defaults: 40 calls, 20 ms, 1048576 floats (4 MiB)
 *
 * Every step, each rank "computes" for 10 ms (a sleep), rank 1 (rank 0 alone) DELAY_MS more, then
 * all ranks sum FLOATS floats with MPI_Allreduce: the pattern of a data-parallel training step
 * whose one worker is slow. Every result is checked exactly (small integers in floats). Rank 0
 * prints the mean time a rank spent in MPI_Allreduce per call (own entry to own exit, averaged
 * over ranks and over the calls after the first two) and that same mean per rank.
 * Exit status: 0 correct, 2 bad arguments, 3 a wrong result (on the rank that saw it, and rank 0).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void sleep_ms(double ms) {
  struct timespec ts;
  ts.tv_sec = (time_t)(ms / 1000.0);
  ts.tv_nsec = (long)((ms - 1000.0 * (double)ts.tv_sec) * 1e6);
  while (nanosleep(&ts, &ts) != 0) {
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int calls = argc > 1 ? atoi(argv[1]) : 40;
  const double delay_ms = argc > 2 ? atof(argv[2]) : 20.0;
  const int n = argc > 3 ? atoi(argv[3]) : 1 << 20;
  if (argc > 4 || calls < 3 || delay_ms < 0 || n < 1) {
    if (rank == 0) fprintf(stderr, "usage: late_rank [CALLS >= 3 [DELAY_MS >= 0 [FLOATS >= 1]]]\n");
    MPI_Finalize();
    return 2;
  }
  const int late = size > 1 ? 1 : 0;
  float* in = malloc(sizeof(float) * (size_t)n);
  float* out = malloc(sizeof(float) * (size_t)n);
  if (in == NULL || out == NULL) MPI_Abort(MPI_COMM_WORLD, 2);

  double in_call = 0.0; /* this rank's seconds in MPI_Allreduce, calls 3.. */
  int wrong = 0;
  for (int call = 0; call < calls; ++call) {
    /* Element i of rank r is (i + r + call) % 8: sums stay small integers, exact in float. */
    for (int i = 0; i < n; ++i) in[i] = (float)((i + rank + call) % 8);
    sleep_ms(10.0 + (rank == late ? delay_ms : 0.0));
    const double t0 = MPI_Wtime();
    MPI_Allreduce(in, out, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    const double t1 = MPI_Wtime();
    if (call >= 2) in_call += t1 - t0;
    for (int i = 0; i < n && !wrong; ++i) {
      long want = 0;
      for (int r = 0; r < size; ++r) want += (i + r + call) % 8;
      if (out[i] != (float)want) {
        fprintf(stderr, "late_rank: rank %d call %d element %d: got %g, want %ld\n", rank, call, i,
                (double)out[i], want);
        wrong = 1;
      }
    }
  }

  /* Rank 0 gathers each rank's time and check (a gather, so the straggler report under
   * LD_PRELOAD holds only the program's all-reduces). */
  const double mine[2] = {1e3 * in_call / (calls - 2), (double)wrong};
  double* all = rank == 0 ? malloc(2 * sizeof(double) * (size_t)size) : NULL;
  MPI_Gather(mine, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  int any_wrong = 0;
  if (rank == 0) {
    double mean = 0.0;
    for (int r = 0; r < size; ++r) {
      mean += all[2 * r] / size;
      any_wrong |= all[2 * r + 1] != 0.0;
    }
    printf("late_rank: %d ranks, %d all-reduces of %d floats, rank %d late by %g ms each time\n",
           size, calls, n, late, delay_ms);
    printf("time in MPI_Allreduce per call, mean over ranks: %.2f ms (per rank:", mean);
    for (int r = 0; r < size; ++r) printf(" %.2f", all[2 * r]);
    printf(")\nresults %s\n", any_wrong ? "WRONG" : "correct");
    free(all);
  }
  free(in);
  free(out);
  MPI_Finalize();
  return wrong || any_wrong ? 3 : 0;
}
