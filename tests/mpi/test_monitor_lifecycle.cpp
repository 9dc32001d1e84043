// Repeated create/free of monitors in every state (idle, an edge exchange in flight or complete,
// edge on some ranks only, garbage estimates, history mode, several monitors at once, monitors on
// sub-communicators) must not leak threads, communicators or requests, and never hang.
#include <dirent.h>
#include <mpi.h>

#include <string>
#include <vector>

#include "mpi_check.hpp"
#include "papcoll/papcoll.h"
#include "prediction/monitor.hpp"
#include "test_monitor_util.hpp"

using namespace papcoll_test;

namespace {

int thread_count() {
  int n = 0;
  if (DIR* d = opendir("/proc/self/task")) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') ++n;
    closedir(d);
  }
  return n;
}

// The Fortran handle a fresh communicator gets: Open MPI hands out the lowest free index, so it
// grows if communicators leak.
int next_comm_handle() {
  MPI_Comm c;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  const int h = static_cast<int>(MPI_Comm_c2f(c));
  MPI_Comm_free(&c);
  return h;
}

papcoll_monitor make(Checker& chk, MPI_Comm comm, int mode) {
  papcoll_monitor_config cfg;
  papcoll_monitor_config_init(&cfg);
  cfg.mode = mode;
  cfg.sync_samples = 2;
  cfg.warmup_messages = 2;
  papcoll_monitor m = nullptr;
  chk.expect_success(papcoll_monitor_create_config(comm, &cfg, &m), "create");
  return m;
}

void expect_no_live_resources(Checker& chk, const std::string& when) {
  const papcoll::prediction::DebugCounters c = papcoll::prediction::debug_counters();
  chk.expect(c.monitors == 0 && c.threads == 0 && c.comms == 0 && c.requests == 0,
             when + ": live monitors " + std::to_string(c.monitors) + ", threads " +
                 std::to_string(c.threads) + ", comms " + std::to_string(c.comms) + ", requests " +
                 std::to_string(c.requests));
}

void one_cycle(Checker& chk, int cycle) {
  const int rank = chk.rank();
  const int mode = cycle % 3 == 2 ? PAPCOLL_MONITOR_HISTORY : PAPCOLL_MONITOR_EDGE;
  papcoll_monitor m = make(chk, MPI_COMM_WORLD, mode);
  if (m == nullptr) return;
  papcoll_options o;
  papcoll_options_init(&o);
  o.monitor = m;
  o.algorithm = cycle % 2 ? "prr" : "auto";
  for (int c = 0; c < cycle % 4; ++c) {
    papcoll_monitor_begin(m);
    sleep_ms(static_cast<double>(mix(31, cycle, rank) % 1000) / 1000.0);
    papcoll_monitor_edge(m, 0.5);
    checked_allreduce(chk, o, 64, 100 * cycle + c, "cycle " + std::to_string(cycle));
  }
  switch (cycle % 5) {
    case 0: break;  // free right after a call (a measured exchange may be in flight)
    case 1:         // every rank edged: the exchange is in flight or done, warm-ups pending
      papcoll_monitor_begin(m);
      papcoll_monitor_edge(m, 0.5);
      break;
    case 2:  // only even ranks edged: the others' contributions come from free itself
      papcoll_monitor_begin(m);
      if (rank % 2 == 0) papcoll_monitor_edge(m, 0.5);
      break;
    case 3: papcoll_monitor_begin(m); break;
    case 4:
      papcoll_monitor_begin(m);
      papcoll_monitor_test_inject(m, -1e300);
      papcoll_monitor_edge(m, 0.5);
      sleep_ms(1.0);  // let the thread start (and maybe finish) the exchange
      break;
  }
  chk.expect_success(papcoll_monitor_free(&m), "free in cycle " + std::to_string(cycle));
  chk.expect(m == nullptr, "handle NULL after free");
  expect_no_live_resources(chk, "after cycle " + std::to_string(cycle));
}

// Several monitors alive at once, on the world and on two different splits, freed in an order
// that differs from the creation order.
void several(Checker& chk) {
  const int rank = chk.rank();
  MPI_Comm a, b;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &a);
  MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &b);
  papcoll_monitor mw = make(chk, MPI_COMM_WORLD, PAPCOLL_MONITOR_EDGE);
  papcoll_monitor ma = make(chk, a, PAPCOLL_MONITOR_EDGE);
  papcoll_monitor mb = make(chk, b, PAPCOLL_MONITOR_HISTORY);
  for (papcoll_monitor m : {mw, ma, mb}) {
    papcoll_monitor_begin(m);
    papcoll_monitor_edge(m, 0.5);
  }
  int x = rank + 1, y = 0;
  papcoll_options o;
  papcoll_options_init(&o);
  o.algorithm = "prr";
  o.monitor = ma;
  chk.expect_success(papcoll_allreduce(&x, &y, 1, MPI_INT, MPI_SUM, a, &o), "allreduce on split a");
  o.monitor = mb;
  chk.expect_success(papcoll_allreduce(&x, &y, 1, MPI_INT, MPI_SUM, b, &o), "allreduce on split b");
  for (papcoll_monitor* m : {&mb, &mw, &ma}) chk.expect_success(papcoll_monitor_free(m), "free");
  MPI_Comm_free(&a);
  MPI_Comm_free(&b);
  expect_no_live_resources(chk, "after several");
}

}  // namespace

int main(int argc, char** argv) {
  init_multiple(&argc, &argv);
  int code = 0;
  {
    Checker chk("test_monitor_lifecycle");
    // Warm up whatever MPI and papcoll create once (MPI's own threads, the finalize keyval, the
    // world's papcoll context), then take the baselines.
    one_cycle(chk, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    const int threads0 = thread_count();
    const int handle0 = next_comm_handle();

    for (int cycle = 0; cycle < 20; ++cycle) one_cycle(chk, cycle);
    several(chk);

    MPI_Barrier(MPI_COMM_WORLD);
    const int threads1 = thread_count();
    const int handle1 = next_comm_handle();
    chk.expect(threads1 == threads0, "threads: " + std::to_string(threads0) + " before, " +
                                         std::to_string(threads1) + " after");
    chk.expect(handle1 == handle0, "next communicator handle: " + std::to_string(handle0) +
                                       " before, " + std::to_string(handle1) + " after");
    expect_no_live_resources(chk, "at the end");
    chk.expect(papcoll::prediction::debug_counters().mismatched == 0, "no mismatched exchange");
    code = chk.finish();
  }
  MPI_Finalize();
  return code;
}
