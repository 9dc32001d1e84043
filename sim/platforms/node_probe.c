/* Checks a platform of many-core nodes under SimGrid SMPI (sim/platforms/README.md, "Platforms of
 * many-core nodes"): what MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) returns, one-way times within
 * a node and between nodes, whether two flows leaving one node share its link, whether two flows
 * inside one node share anything, whether all of a node's ranks copying at once (or one rank to
 * several) share anything (a node's memory bandwidth), and whether ranks computing at once on one
 * host slow each other down. Every figure is simulated time (MPI_Wtime); run it network-only so
 * nothing of the simulating machine leaks in:
 *
 *   smpicc -O2 sim/platforms/node_probe.c -o build-smpi/node_probe
 *   sim/run.sh gige-8x6 12 build-smpi/node_probe --cfg=smpi/simulate-computation:no
 *
 * It needs at least three nodes of at least two ranks each, the ranks of a node consecutive (the
 * platforms' hostfiles); rank 0 prints one line per check. */
#include <mpi.h>
#include <smpi/smpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIG (4 << 20) /* bytes of a large message */
static char* buf_out;
static char* buf_in;

/* One-way time of `bytes` between ranks a and b: half a round trip, a sends first. The first
 * round trip is not timed: ranks leave a barrier at different times, and SMPI starts a transfer
 * only once its receive is posted, so it would add the barrier's skew. */
static double one_way(int a, int b, int bytes, int rank) {
  MPI_Barrier(MPI_COMM_WORLD);
  double t = 0;
  for (int trip = 0; trip < 5; ++trip) {
    const double t0 = MPI_Wtime();
    if (rank == a) {
      MPI_Send(buf_out, bytes, MPI_CHAR, b, 0, MPI_COMM_WORLD);
      MPI_Recv(buf_in, bytes, MPI_CHAR, b, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (trip > 0) t += (MPI_Wtime() - t0) / 2 / 4;
    } else if (rank == b) {
      MPI_Recv(buf_in, bytes, MPI_CHAR, a, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf_out, bytes, MPI_CHAR, a, 0, MPI_COMM_WORLD);
    }
  }
  double out = 0;
  MPI_Allreduce(&t, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return out;
}

/* Flows from[i] -> to[i] of BIG bytes started together (receives posted first, then a barrier);
 * the slowest receiver's time from the barrier. */
static double flows(int n, const int* from, const int* to, int rank) {
  MPI_Request reqs[8];
  int k = 0;
  for (int i = 0; i < n; ++i)
    if (rank == to[i]) MPI_Irecv(buf_in, BIG, MPI_CHAR, from[i], 1, MPI_COMM_WORLD, &reqs[k++]);
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int i = 0; i < n; ++i)
    if (rank == from[i]) MPI_Isend(buf_out, BIG, MPI_CHAR, to[i], 1, MPI_COMM_WORLD, &reqs[k++]);
  MPI_Waitall(k, reqs, MPI_STATUSES_IGNORE);
  double t = MPI_Wtime() - t0, out = 0;
  MPI_Allreduce(&t, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return out;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, p = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  buf_out = calloc(BIG, 1);
  buf_in = calloc(BIG, 1);

  /* 1. MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) against the host names. */
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int node_rank = 0, node_size = 0, leader = rank;
  MPI_Comm_rank(node, &node_rank);
  MPI_Comm_size(node, &node_size);
  MPI_Bcast(&leader, 1, MPI_INT, 0, node);
  char name[MPI_MAX_PROCESSOR_NAME] = {0};
  int len = 0;
  MPI_Get_processor_name(name, &len);
  int* leaders = malloc(sizeof(int) * p);
  char* names = malloc((size_t)p * MPI_MAX_PROCESSOR_NAME);
  MPI_Allgather(&leader, 1, MPI_INT, leaders, 1, MPI_INT, MPI_COMM_WORLD);
  MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                MPI_COMM_WORLD);
  int nodes = 0, agree = 1, k = node_size; /* k: ranks on rank 0's node */
  MPI_Bcast(&k, 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (int r = 0; r < p; ++r) {
    if (leaders[r] == r) ++nodes;
    const int same_name = strcmp(names + (size_t)r * MPI_MAX_PROCESSOR_NAME,
                                 names + (size_t)leaders[r] * MPI_MAX_PROCESSOR_NAME) == 0;
    for (int q = 0; q < r; ++q) {
      const int same_host = strcmp(names + (size_t)r * MPI_MAX_PROCESSOR_NAME,
                                   names + (size_t)q * MPI_MAX_PROCESSOR_NAME) == 0;
      if (same_host != (leaders[r] == leaders[q])) agree = 0;
    }
    if (!same_name) agree = 0;
  }
  if (rank == 0)
    printf("split_type: %d ranks on %d nodes (%d on rank 0's node, %s); nodes %s the hosts\n", p,
           nodes, k, names, agree ? "are exactly" : "DIFFER FROM");
  MPI_Comm_free(&node);
  /* On a platform whose nodes are zones of one-rank hosts (opa-32x32: a port per rank), SMPI's
   * split_type sees hosts; PAPCOLL_NODES=block:K, which sim/run.sh sets from NAME.nodes, names
   * the nodes instead, as it does for papcoll. */
  const char* block = getenv("PAPCOLL_NODES");
  if (block && strncmp(block, "block:", 6) == 0 && atoi(block + 6) > 0) {
    k = atoi(block + 6);
    nodes = (p + k - 1) / k;
    if (rank == 0) printf("PAPCOLL_NODES=%s: %d nodes of %d ranks\n", block, nodes, k);
  }
  if (nodes < 3 || k < 2) {
    if (rank == 0) printf("node_probe: needs 3 nodes of 2 ranks or more\n");
    MPI_Finalize();
    return 1;
  }

  /* 2. Ping-pong within a node (0-1) and between nodes (0-k). */
  const int sizes[] = {0, 1024, 65536, 1 << 20, BIG};
  for (int i = 0; i < 5; ++i) {
    const double intra = one_way(0, 1, sizes[i], rank), inter = one_way(0, k, sizes[i], rank);
    if (rank == 0)
      printf("one-way %8d B: within a node %10.3f us (%7.3f GB/s), between nodes %10.3f us "
             "(%7.3f GB/s)\n",
             sizes[i], intra * 1e6, sizes[i] ? sizes[i] / intra / 1e9 : 0.0, inter * 1e6,
             sizes[i] ? sizes[i] / inter / 1e9 : 0.0);
  }

  /* 3. Concurrent 4 MiB flows. */
  int f1[] = {0}, t1[] = {k};
  const double one_out = flows(1, f1, t1, rank);
  int f2[] = {0, 1}, t2[] = {k, 2 * k};
  const double two_out = flows(2, f2, t2, rank);
  int f3[] = {0, 1}, t3[] = {k, k + 1};
  const double two_to_one = flows(2, f3, t3, rank);
  int f4[] = {0, k}, t4[] = {k, 0};
  const double both_ways = flows(2, f4, t4, rank);
  int f5[] = {0}, t5[] = {1};
  const double one_in = flows(1, f5, t5, rank);
  int f6[] = {0, 1}, t6[] = {1, 0};
  const double in_both = k >= 2 ? flows(2, f6, t6, rank) : 0;
  double in_four = 0;
  if (k >= 4) {
    int f7[] = {0, 2}, t7[] = {1, 3};
    in_four = flows(2, f7, t7, rank);
  }
  if (rank == 0) {
    printf("4 MiB flows between nodes: one %.3f ms; two leaving one node for two nodes %.3f ms "
           "(x%.2f); two from one node to one node %.3f ms (x%.2f); one each way %.3f ms (x%.2f)\n",
           one_out * 1e3, two_out * 1e3, two_out / one_out, two_to_one * 1e3,
           two_to_one / one_out, both_ways * 1e3, both_ways / one_out);
    printf("4 MiB flows within a node: one %.3f ms; 0<->1 both ways %.3f ms (x%.2f)", one_in * 1e3,
           in_both * 1e3, in_both / one_in);
    if (k >= 4) printf("; 0->1 and 2->3 %.3f ms (x%.2f)", in_four * 1e3, in_four / one_in);
    printf("\n");
  }

  /* 4. All of node 0's k ranks copying at once (each to the next of the node, a ring), and rank 0
   * sending to up to 7 others of its node at once: fat pipes give x1.00 for both; a node's memory
   * bus slows the first down once k flows need more than it carries. */
  int* from = malloc(sizeof(int) * (size_t)k);
  int* to = malloc(sizeof(int) * (size_t)k);
  for (int i = 0; i < k; ++i) from[i] = i, to[i] = (i + 1) % k;
  const double node_ring = flows(k, from, to, rank);
  const int fan = k - 1 < 7 ? k - 1 : 7;
  for (int i = 0; i < fan; ++i) from[i] = 0, to[i] = i + 1;
  const double fan_out = flows(fan, from, to, rank);
  free(from);
  free(to);
  if (rank == 0)
    printf("4 MiB flows within a node, many at once: all %d ranks of node 0, each to the next, "
           "%.3f ms (x%.2f); rank 0 to %d others %.3f ms (x%.2f)\n",
           k, node_ring * 1e3, node_ring / one_in, fan, fan_out * 1e3, fan_out / one_in);

  /* 5. Every rank computes 1e7 flops at once (10 ms on a 1 Gf core). */
  MPI_Barrier(MPI_COMM_WORLD);
  const double c0 = MPI_Wtime();
  smpi_execute_flops(1e7);
  double c = MPI_Wtime() - c0, cmax = 0;
  MPI_Allreduce(&c, &cmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0)
    printf("1e7 flops on every rank at once: %.3f ms (10 ms when each rank has a core)\n",
           cmax * 1e3);
  free(leaders);
  free(names);
  free(buf_out);
  free(buf_in);
  MPI_Finalize();
  return 0;
}
