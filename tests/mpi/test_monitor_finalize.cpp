// MPI_Finalize with monitors still alive, some with an edge exchange in flight (edge called on
// some ranks only), on the world and on two different splits: MPI_Finalize must shut them down
// (threads joined, communicators freed) and return; freeing a handle afterwards only releases
// memory. A hang here is caught by the test's timeout.
#include <mpi.h>

#include <cstdio>
#include <string>

#include "mpi_check.hpp"
#include "papcoll/papcoll.h"
#include "prediction/monitor.hpp"
#include "test_monitor_util.hpp"

using namespace papcoll_test;

int main(int argc, char** argv) {
  init_multiple(&argc, &argv);
  int code = 0, rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  papcoll_monitor world = nullptr, hist = nullptr, ma = nullptr, mb = nullptr;
  MPI_Comm a, b;
  {
    Checker chk("test_monitor_finalize");
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &a);
    MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &b);
    chk.expect_success(papcoll_monitor_create(MPI_COMM_WORLD, &world), "create world");
    papcoll_monitor_config cfg;
    papcoll_monitor_config_init(&cfg);
    cfg.mode = PAPCOLL_MONITOR_HISTORY;
    chk.expect_success(papcoll_monitor_create_config(MPI_COMM_WORLD, &cfg, &hist), "create hist");
    chk.expect_success(papcoll_monitor_create(a, &ma), "create a");
    chk.expect_success(papcoll_monitor_create(b, &mb), "create b");

    papcoll_options o;
    papcoll_options_init(&o);
    o.algorithm = "prr";
    for (int it = 0; it < 3; ++it) {
      papcoll_monitor_begin(world);
      papcoll_monitor_edge(world, 0.5);
      o.monitor = world;
      checked_allreduce(chk, o, 50, it, "world");
      o.monitor = hist;
      checked_allreduce(chk, o, 50, 10 + it, "hist");
    }
    // Leave exchanges in flight: edge on some ranks of each monitor.
    papcoll_monitor_begin(world);
    if (rank % 2 == 0) papcoll_monitor_edge(world, 0.5);
    papcoll_monitor_begin(ma);
    papcoll_monitor_edge(ma, 0.5);
    papcoll_monitor_begin(mb);
    if (rank % 3 == 0) papcoll_monitor_edge(mb, 0.5);
    code = chk.finish();
  }
  // The splits' handles are not freed either: MPI_Finalize takes care of them.
  MPI_Finalize();
  const papcoll::prediction::DebugCounters c = papcoll::prediction::debug_counters();
  if (c.monitors != 0 || c.threads != 0 || c.comms != 0 || c.requests != 0) {
    std::fprintf(stderr,
                 "rank %d: after MPI_Finalize: monitors %d threads %d comms %d requests %d\n", rank,
                 c.monitors, c.threads, c.comms, c.requests);
    code = 1;
  }
  for (papcoll_monitor* m : {&world, &hist, &ma, &mb}) {
    if (papcoll_monitor_free(m) != PAPCOLL_SUCCESS || *m != nullptr) {
      std::fprintf(stderr, "rank %d: free after MPI_Finalize failed: %s\n", rank,
                   papcoll_last_error());
      code = 1;
    }
  }
  return code;
}
