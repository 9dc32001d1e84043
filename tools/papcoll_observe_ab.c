/* papcoll-observe-ab: what the straggler report and the watchdog cost a tight loop, measured in
 * one process so that the machine's noise hits every configuration alike (scripts/observe_tax.py
 * --ab, docs/report-format.md "Cost"). Three copies of libpapcoll.so (separate files, so each is
 * loaded as its own library and reads the environment once, at load) are opened with dlopen,
 * each under its own environment:
 *
 *   board-off   PAPCOLL_BOARD=0: nothing observed
 *   off         the defaults: the call board only
 *   on          PAPCOLL_REPORT=REPORT and PAPCOLL_TIMEOUT=60: the report recorded, the watchdog
 * armed
 *
 * Every round runs a block of CALLS 8-byte papcoll_allreduce calls (MPI_DOUBLE, MPI_SUM, default
 * options: auto, which hands 8 bytes to the MPI library) through each copy, in an order rotated
 * per round, between barriers. Rank 0 prints the median per-call time of each configuration and
 * the medians of the per-round ratios on/off and off/board-off, and each configuration's fastest
 * block and 10th percentile (the steadier figures on a machine shared with other work).
 *
 *   papcoll-observe-ab LIB_BOARD_OFF LIB_OFF LIB_ON REPORT ROUNDS CALLS */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

typedef int (*allreduce_fn)(const void*, void*, int, MPI_Datatype, MPI_Op, MPI_Comm, const void*);

static int compare(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static double median(double* v, int n) {
  qsort(v, (size_t)n, sizeof *v, compare);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static allreduce_fn open_copy(const char* path) {
  void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) {
    fprintf(stderr, "papcoll-observe-ab: %s\n", dlerror());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  return (allreduce_fn)dlsym(h, "papcoll_allreduce");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc != 7) {
    if (rank == 0)
      fprintf(stderr,
              "usage: papcoll-observe-ab LIB_BOARD_OFF LIB_OFF LIB_ON REPORT ROUNDS CALLS\n");
    MPI_Finalize();
    return 2;
  }
  const int rounds = atoi(argv[5]), calls = atoi(argv[6]);
  allreduce_fn fn[3];
  setenv("PAPCOLL_BOARD", "0", 1);
  fn[0] = open_copy(argv[1]);
  unsetenv("PAPCOLL_BOARD");
  fn[1] = open_copy(argv[2]);
  setenv("PAPCOLL_REPORT", argv[4], 1);
  setenv("PAPCOLL_TIMEOUT", "60", 1);
  fn[2] = open_copy(argv[3]);
  unsetenv("PAPCOLL_REPORT");
  unsetenv("PAPCOLL_TIMEOUT");
  double* t[3];
  for (int c = 0; c < 3; ++c) t[c] = malloc(sizeof(double) * (size_t)rounds);
  double x = 1, y = 0;
  for (int c = 0; c < 3; ++c) /* warm-up: every copy makes its communicator state */
    for (int i = 0; i < 100; ++i) fn[c](&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, NULL);
  int bad = 0;
  for (int r = 0; r < rounds; ++r)
    for (int k = 0; k < 3; ++k) {
      const int c = (r + k) % 3;
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      for (int i = 0; i < calls; ++i) {
        bad |= fn[c](&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, NULL) != 0;
      }
      const double dt = (MPI_Wtime() - t0) / calls;
      double slowest = 0;
      MPI_Reduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
      t[c][r] = slowest * 1e6;
    }
  if (rank == 0) {
    double* ratio_on = malloc(sizeof(double) * (size_t)rounds);
    double* ratio_off = malloc(sizeof(double) * (size_t)rounds);
    for (int r = 0; r < rounds; ++r) {
      ratio_on[r] = t[2][r] / t[1][r];
      ratio_off[r] = t[1][r] / t[0][r];
    }
    const char* names[3] = {"board-off", "off", "on"};
    for (int c = 0; c < 3; ++c) {
      const double med = median(t[c], rounds); /* sorts t[c] */
      printf("%s %.3f us/call (median of %d blocks; fastest block %.3f, 10th percentile %.3f)\n",
             names[c], med, rounds, t[c][0], t[c][rounds / 10]);
    }
    printf("on/off %.4f off/board-off %.4f (medians of per-round ratios)\n",
           median(ratio_on, rounds), median(ratio_off, rounds));
  }
  MPI_Finalize();
  return bad;
}
