/* Simulated cost of papcoll's node detection (src/executor/node_detection.cpp: the same MPI
 * calls) against MPI_Comm_dup, which a communicator context's creation also makes (docs/smpi.md,
 * "Platforms of many-core nodes"):
 *
 *   smpicc -O2 sim/platforms/detection_cost.c -o build-smpi/detection_cost
 *   flock /tmp/papcoll-smpi.lock sim/run.sh gige-64x16 1024 build-smpi/detection_cost \
 *       [--cfg=smpi/simulate-computation:no]
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The slowest rank's value. */
static double slowest(double t) {
  double m = 0;
  MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, p = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm dup;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  const double dup_s = slowest(MPI_Wtime() - t0);
  for (int rep = 0; rep < 2; ++rep) {
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    /* shared_node_of: the node communicator's rank 0, translated to a rank of `dup`. */
    MPI_Comm node;
    MPI_Comm_split_type(dup, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Group node_group, comm_group;
    int zero = 0, leader = -1, on_node = 0;
    MPI_Comm_size(node, &on_node);
    MPI_Comm_group(node, &node_group);
    MPI_Comm_group(dup, &comm_group);
    MPI_Group_translate_ranks(node_group, 1, &zero, comm_group, &leader);
    MPI_Group_free(&node_group);
    MPI_Group_free(&comm_group);
    MPI_Comm_free(&node);
    const double split_s = MPI_Wtime() - t0;
    /* detect_node_layouts: every rank's leader and PAPCOLL_NODES label. */
    int64_t mine[2] = {leader, -1};
    int64_t* all = malloc(16 * (size_t)p);
    MPI_Allgather(mine, 2, MPI_INT64_T, all, 2, MPI_INT64_T, dup);
    const double total_s = MPI_Wtime() - t0;
    free(all);
    const double split_max = slowest(split_s), total_max = slowest(total_s);
    if (rank == 0)
      printf("p=%d, run %d: MPI_Comm_dup %.3f ms; detection: split_type and groups %.3f ms, "
             "with the allgather %.3f ms (slowest rank)\n",
             p, rep, dup_s * 1e3, split_max * 1e3, total_max * 1e3);
  }
  MPI_Comm_free(&dup);
  MPI_Finalize();
  return 0;
}
