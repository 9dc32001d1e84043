// The progress monitor end to end: iterations of "compute (sleep), then all-reduce" with one rank
// late, as in the paper's benchmark (Fig. 9). Every call's result is checked, every call's pattern
// must be bit-identical on all ranks, and the predicted patterns must converge to the injected
// ones: edge mode (begin + edge(0.5), the monitor thread), history mode (no edge, per call site).
#include <mpi.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "mpi_check.hpp"
#include "papcoll/papcoll.h"
#include "test_monitor_util.hpp"

using namespace papcoll_test;

namespace {

using Clock = std::chrono::steady_clock;

struct Phase {
  const char* name;
  papcoll_monitor mon;
  bool call_edge;  // begin + edge(0.5) as in Fig. 9
  const char* algorithm;
  int iterations;
  int skip;  // first iterations not judged (nothing learnt yet)
  int expected_source;
  // History mode: the test's replica of the monitor's predictor, fed with the true arrivals.
  papcoll::prediction::HistoryTable* replica;
};

Clock::time_point after(Clock::time_point t, double ms) {
  return t +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::milli>(ms));
}

// One call site with a steady pattern: rank `late` arrives `delay_ms` after the others. Judged
// (Tally::judge) against what the monitor should have computed from the true timestamps (the
// mechanism: exchange, clock offsets, agreement) and against the injected pattern, allowing for
// how far the ranks really followed it (oversubscribed cores wake ranks late).
void run_phase(Checker& chk, const Phase& ph, int site, int late, double base_ms, double delay_ms,
               Tally& t) {
  const int p = chk.size(), rank = chk.rank();
  std::vector<double> injected(static_cast<size_t>(p), base_ms);
  injected[late] += delay_ms;
  for (int it = 0; it < ph.iterations; ++it) {
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    Stamps st;
    const Clock::time_point start = Clock::now();
    if (ph.call_edge) {
      st.begin = now_s();
      papcoll_monitor_begin(ph.mon);
    }
    std::this_thread::sleep_until(after(start, injected[rank] / 2));
    if (ph.call_edge) {
      st.edge = now_s();
      st.fraction = 0.5;
      papcoll_monitor_edge(ph.mon, 0.5);
    }
    std::this_thread::sleep_until(after(start, injected[rank]));
    papcoll_options opt;
    papcoll_options_init(&opt);
    opt.algorithm = ph.algorithm;
    opt.monitor = ph.mon;
    opt.monitor_site = site;
    const std::string what = std::string(ph.name) + " site " + std::to_string(site) + " it " +
                             std::to_string(it);
    st.entry = now_s();
    checked_allreduce(chk, opt, 1000 + it, 77 + static_cast<uint64_t>(it), what);
    const SeenPattern s = agreed_pattern(chk, ph.mon, what);
    const std::vector<Stamps> all = gather_stamps(st, p);
    std::vector<double> expected;
    if (ph.call_edge) {
      expected = expected_edge_pattern(all);
    } else {
      expected = ph.replica->predict(site);
      ph.replica->feed(site, actual_pattern(all));
    }
    if (std::getenv("PAPCOLL_TEST_VERBOSE") != nullptr && rank == 0) {
      std::printf("%s it %d source %d:", ph.name, it, s.source);
      for (double x : s.pattern) std::printf(" %.3f", x * 1e3);
      std::printf(" | expected");
      for (double x : expected) std::printf(" %.3f", x * 1e3);
      std::printf("\n");
    }
    if (it < ph.skip) continue;
    t.add(s.pattern, expected, injected, late);
    chk.expect(s.source == ph.expected_source,
               what + ": pattern source " + std::to_string(s.source));
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int provided = init_multiple(&argc, &argv);
  int code = 0;
  {
    Checker chk("test_monitor");
    const int p = chk.size();
    chk.expect(provided == MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE provided");

    papcoll_monitor edge = nullptr, hist = nullptr, last = nullptr;
    chk.expect_success(papcoll_monitor_create(MPI_COMM_WORLD, &edge), "create (edge mode)");
    papcoll_monitor_config cfg;
    papcoll_monitor_config_init(&cfg);
    cfg.mode = PAPCOLL_MONITOR_HISTORY;
    chk.expect_success(papcoll_monitor_create_config(MPI_COMM_WORLD, &cfg, &hist),
                       "create (history, sma)");
    cfg.predictor = PAPCOLL_PREDICT_LAST;
    chk.expect_success(papcoll_monitor_create_config(MPI_COMM_WORLD, &cfg, &last),
                       "create (history, last)");

    const int late = p > 1 ? 1 : 0, other_late = p > 2 ? p - 1 : 0;
    // As in the paper, the computation covers the exchange: the late rank's edge (at 12 ms) comes
    // before the others arrive (14 ms). Otherwise the pattern is rightly the one the collective
    // sees, in which nobody starts before the exchange ends (docs/prediction.md).
    using papcoll::prediction::HistoryTable;
    using papcoll::prediction::PredictorConfig;
    using papcoll::prediction::PredictorKind;
    HistoryTable replica_sma(PredictorConfig{PredictorKind::sma, 4, 0.5});
    HistoryTable replica_last(PredictorConfig{PredictorKind::last, 4, 0.5});
    // As in the paper, the computation covers the exchange: the late rank's edge (at 12 ms) comes
    // before the others arrive (14 ms). Otherwise the pattern is rightly the one the collective
    // sees, in which nobody starts before the exchange ends (docs/prediction.md).
    Tally t_edge, t_auto, t_hist, t_site1, t_site2;
    run_phase(chk, Phase{"edge/prr", edge, true, "prr", 16, 1, PAPCOLL_PATTERN_EDGE, nullptr}, 0,
              late, 14.0, 10.0, t_edge);
    run_phase(chk, Phase{"edge/auto", edge, true, "auto", 10, 1, PAPCOLL_PATTERN_EDGE, nullptr}, 0,
              other_late, 14.0, 10.0, t_auto);
    run_phase(
        chk, Phase{"history/prr", hist, false, "prr", 16, 2, PAPCOLL_PATTERN_HISTORY, &replica_sma},
        0, late, 6.0, 12.0, t_hist);
    // Two call sites with different late ranks, interleaved: each learns its own pattern.
    for (int round = 0; round < 4; ++round) {
      run_phase(chk,
                Phase{"history-last/site1", last, false, "slt", 3, 1, PAPCOLL_PATTERN_HISTORY,
                      &replica_last},
                1, late, 4.0, 10.0, t_site1);
      run_phase(chk,
                Phase{"history-last/site2", last, false, "prr", 3, 1, PAPCOLL_PATTERN_HISTORY,
                      &replica_last},
                2, other_late, 4.0, 10.0, t_site2);
    }
    const double sync_edge = sync_error_ms(chk, edge, 0.0, "edge monitor");
    const double sync_hist = sync_error_ms(chk, hist, 0.0, "history monitor");
    const double sync_last = sync_error_ms(chk, last, 0.0, "history-last monitor");
    t_edge.sync_ms = t_auto.sync_ms = sync_edge;
    t_hist.sync_ms = sync_hist;
    t_site1.sync_ms = t_site2.sync_ms = sync_last;
    t_edge.judge(chk, "edge/prr");
    t_auto.judge(chk, "edge/auto");
    t_hist.judge(chk, "history/prr");
    t_site1.judge(chk, "history-last/site1");
    t_site2.judge(chk, "history-last/site2");

    for (papcoll_monitor* m : {&edge, &hist, &last}) {
      chk.expect_success(papcoll_monitor_free(m), "free");
      chk.expect(*m == nullptr, "free sets the handle to NULL");
    }
    code = chk.finish();
  }
  MPI_Finalize();
  return code;
}
