// MPI initialised without MPI_THREAD_MULTIPLE (as under SimGrid SMPI): the edge mode's thread is
// refused with PAPCOLL_ERR_THREAD on every rank, and the history mode (no thread) works and
// learns a steady pattern.
#include <mpi.h>

#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "mpi_check.hpp"
#include "papcoll/papcoll.h"
#include "test_monitor_util.hpp"

using namespace papcoll_test;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int code = 0;
  {
    Checker chk("test_monitor_nothread");
    const int p = chk.size(), rank = chk.rank();
    int provided = MPI_THREAD_MULTIPLE;
    MPI_Query_thread(&provided);
    if (provided < MPI_THREAD_MULTIPLE) {
      papcoll_monitor m = reinterpret_cast<papcoll_monitor>(&provided);
      chk.expect_code(papcoll_monitor_create(MPI_COMM_WORLD, &m), PAPCOLL_ERR_THREAD,
                      "edge mode without MPI_THREAD_MULTIPLE");
      chk.expect(m == nullptr, "failed create sets NULL");
      chk.expect(std::strstr(papcoll_last_error(), "MPI_THREAD_MULTIPLE") != nullptr &&
                     std::strstr(papcoll_last_error(), "PAPCOLL_MONITOR_HISTORY") != nullptr,
                 std::string("message explains: ") + papcoll_last_error());
      chk.expect(std::strcmp(papcoll_error_string(PAPCOLL_ERR_THREAD), "unknown error code") != 0,
                 "PAPCOLL_ERR_THREAD has a description");
    }

    papcoll_monitor_config cfg;
    papcoll_monitor_config_init(&cfg);
    cfg.mode = PAPCOLL_MONITOR_HISTORY;
    cfg.predictor = PAPCOLL_PREDICT_LAST;
    papcoll_monitor m = nullptr;
    chk.expect_success(papcoll_monitor_create_config(MPI_COMM_WORLD, &cfg, &m), "history mode");
    chk.expect_success(papcoll_monitor_edge(m, 0.5),
                       "edge is accepted (and ignored) in history mode");
    const int late = p > 1 ? 1 : 0;
    std::vector<double> injected(static_cast<size_t>(p), 4.0);
    injected[late] += 8.0;
    Tally t;
    std::vector<double> previous;  // the true pattern of the previous call: what "last" predicts
    for (int it = 0; it < 10; ++it) {
      MPI_Barrier(MPI_COMM_WORLD);
      MPI_Barrier(MPI_COMM_WORLD);
      sleep_ms(injected[rank]);
      Stamps st;
      st.entry = now_s();
      papcoll_options o;
      papcoll_options_init(&o);
      o.algorithm = "prr";
      o.monitor = m;
      checked_allreduce(chk, o, 400, it, "history it " + std::to_string(it));
      const SeenPattern s = agreed_pattern(chk, m, "history it " + std::to_string(it));
      const std::vector<double> expected = previous;
      previous = actual_pattern(gather_stamps(st, p));
      if (it == 0) {
        chk.expect(s.source == PAPCOLL_PATTERN_NONE, "nothing to predict from at the first call");
        continue;
      }
      chk.expect(s.source == PAPCOLL_PATTERN_HISTORY, "history source");
      t.add(s.pattern, expected, injected, late);
    }
    t.sync_ms = sync_error_ms(chk, m, 0.0, "history without threads");
    t.judge(chk, "history without threads");
    chk.expect_success(papcoll_monitor_free(&m), "free");
    code = chk.finish();
  }
  MPI_Finalize();
  return code;
}
