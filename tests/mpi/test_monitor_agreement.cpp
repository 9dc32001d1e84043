// Adversarial tests of the monitor's agreement: whatever the ranks do between collectives (edge
// or not, late or early, garbage estimates, clocks seconds apart, exchanges still in flight at
// the collective's entry), every call must return the right result with a pattern that is
// bit-identical on every rank, and nothing may hang (the ctest wrapper has a timeout).
#include <mpi.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "mpi_check.hpp"
#include "papcoll/papcoll.h"
#include "test_monitor_util.hpp"

using namespace papcoll_test;

namespace {

using Clock = std::chrono::steady_clock;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
const double kGarbage[] = {kNaN, kInf, -kInf, -5.0, 1e300, -1e300, 1e7, -0.0};

const char* const kAlgos[] = {"prr", "slt", "auto", "ring", "native"};

papcoll_options opts(papcoll_monitor mon, const char* algo, int site = 0) {
  papcoll_options o;
  papcoll_options_init(&o);
  o.monitor = mon;
  o.algorithm = algo;
  o.monitor_site = site;
  return o;
}

void sleep_until_ms(Clock::time_point start, double ms) {
  std::this_thread::sleep_until(start + std::chrono::duration_cast<Clock::duration>(
                                            std::chrono::duration<double, std::milli>(ms)));
}

// edge() immediately followed by the collective, after rank-dependent random work: the exchange
// is typically still in flight (or not even started by the thread) when the main thread enters.
void in_flight(Checker& chk, papcoll_monitor mon) {
  for (int it = 0; it < 30; ++it) {
    const double work = static_cast<double>(mix(11, it, chk.rank()) % 3000) / 1000.0;
    papcoll_monitor_begin(mon);
    sleep_ms(work);
    papcoll_monitor_edge(mon, 0.5);
    const std::string what = "in-flight it " + std::to_string(it);
    checked_allreduce(chk, opts(mon, kAlgos[it % 4]), 257, 1000 + it, what);
    agreed_pattern(chk, mon, what);
  }
}

// One rank per iteration never calls edge (sometimes not even begin); the others do, with random
// delays. Its contribution is its arrival, sent at the collective's entry.
void never_edge(Checker& chk, papcoll_monitor mon) {
  const int p = chk.size(), rank = chk.rank();
  for (int it = 0; it < 24; ++it) {
    const int silent = it % p;
    const double total = 2.0 + static_cast<double>(mix(12, it, rank) % 6000) / 1000.0;
    MPI_Barrier(MPI_COMM_WORLD);
    const bool calls_begin = rank != silent || it % 2 == 0;
    if (calls_begin) papcoll_monitor_begin(mon);
    const Clock::time_point start = Clock::now();
    sleep_until_ms(start, total / 2);
    // (one check per rank and iteration either way: every rank must run the same checks)
    chk.expect_success(rank != silent ? papcoll_monitor_edge(mon, 0.5) : PAPCOLL_SUCCESS, "edge");
    sleep_until_ms(start, total);
    const std::string what = "never-edge it " + std::to_string(it);
    checked_allreduce(chk, opts(mon, kAlgos[it % 3]), 300, 2000 + it, what);
    const SeenPattern s = agreed_pattern(chk, mon, what);
    chk.expect(s.source == PAPCOLL_PATTERN_EDGE, what + ": source " + std::to_string(s.source));
  }
}

// Nobody calls edge: every rank contributes at entry, the exchange ends with the last arrival,
// and from there all start together: the pattern is balanced (all zeros), never a hang.
void nobody_edges(Checker& chk, papcoll_monitor mon) {
  for (int it = 0; it < 8; ++it) {
    sleep_ms(static_cast<double>(mix(13, it, chk.rank()) % 4000) / 1000.0);
    const std::string what = "nobody-edges it " + std::to_string(it);
    checked_allreduce(chk, opts(mon, "prr"), 100, 3000 + it, what);
    const SeenPattern s = agreed_pattern(chk, mon, what);
    bool zeros = true;
    for (double x : s.pattern) zeros = zeros && x == 0.0;
    chk.expect(zeros, what + ": pattern not balanced");
  }
}

// Every rank reports at its own fraction of the work; the late rank early enough (25%) that its
// estimate is in before the others arrive. The prediction must still match the injected pattern.
void different_fractions(Checker& chk, papcoll_monitor mon) {
  const int p = chk.size(), rank = chk.rank();
  // Not below 0.25: the estimate multiplies the time so far by (1 - f) / f, and with it the wake-up
  // noise of an oversubscribed core.
  const double fractions[] = {0.25, 0.4, 0.5, 0.75, 0.9, 1.0};
  const int late = p > 1 ? p / 2 : 0;
  std::vector<double> injected(static_cast<size_t>(p), 12.0);
  injected[late] += 10.0;
  const double f = rank == late ? 0.25 : fractions[rank % 6];
  Tally t;
  for (int it = 0; it < 14; ++it) {
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    Stamps st;
    st.begin = now_s();
    papcoll_monitor_begin(mon);
    const Clock::time_point start = Clock::now();
    sleep_until_ms(start, injected[rank] * f);
    st.edge = now_s();
    st.fraction = f;
    chk.expect_success(papcoll_monitor_edge(mon, f), "edge(f)");
    sleep_until_ms(start, injected[rank]);
    const std::string what = "fractions it " + std::to_string(it);
    st.entry = now_s();
    checked_allreduce(chk, opts(mon, "prr"), 512, 4000 + it, what);
    const SeenPattern s = agreed_pattern(chk, mon, what);
    const std::vector<double> expected = expected_edge_pattern(gather_stamps(st, p));
    if (it > 0) t.add(s.pattern, expected, injected, late);
  }
  t.sync_ms = sync_error_ms(chk, mon, 0.0, "fractions");
  t.judge(chk, "fractions");
}

// Estimates replaced by NaN, infinities, negative and huge values on random ranks (on all ranks in
// some iterations: then the edge pattern is unusable and the call falls back to history).
void garbage(Checker& chk, papcoll_monitor mon) {
  const int p = chk.size(), rank = chk.rank();
  int fallbacks = 0, all_bad_iterations = 0;
  for (int it = 0; it < 40; ++it) {
    const bool all_bad = it % 5 == 4;
    const bool bad = all_bad || mix(14, it, rank) % 3 == 0;
    papcoll_monitor_begin(mon);
    sleep_ms(static_cast<double>(mix(15, it, rank) % 2000) / 1000.0);
    // All ranks: NaN or infinities (nothing believable); some ranks: any of the first seven.
    const uint64_t pick = all_bad ? mix(16, it) % 3 : mix(16, it, rank) % 3 + mix(17, it, rank) % 5;
    if (bad) papcoll_monitor_test_inject(mon, kGarbage[pick]);
    papcoll_monitor_edge(mon, 0.5);
    const std::string what = "garbage it " + std::to_string(it);
    checked_allreduce(chk, opts(mon, kAlgos[it % 3]), 200 + it, 5000 + it, what);
    const SeenPattern s = agreed_pattern(chk, mon, what);
    bool sane = true;
    for (double x : s.pattern) sane = sane && std::isfinite(x) && x >= 0 && x <= 3600;
    chk.expect(sane, what + ": pattern not finite / out of range");
    if (all_bad) {
      ++all_bad_iterations;
      // NaN or infinities everywhere: nothing to believe (-5 s or 1e7 could be believable).
      fallbacks += s.source != PAPCOLL_PATTERN_EDGE ? 1 : 0;
    }
  }
  (void)p;
  chk.expect(fallbacks == all_bad_iterations, "garbage: fallback in " + std::to_string(fallbacks) +
                                                  "/" + std::to_string(all_bad_iterations) +
                                                  " iterations with only NaN/inf estimates");
}

// Clocks seconds apart (a per-rank artificial offset): the offsets measured at creation must make
// the pattern right anyway, in edge and in history mode.
void clock_offsets(Checker& chk) {
  const int p = chk.size(), rank = chk.rank();
  const int late = p - 1;
  std::vector<double> injected(static_cast<size_t>(p), 12.0);
  injected[late] += 10.0;
  for (int mode : {PAPCOLL_MONITOR_EDGE, PAPCOLL_MONITOR_HISTORY}) {
    papcoll_monitor_config cfg;
    papcoll_monitor_config_init(&cfg);
    cfg.mode = mode;
    cfg.test_clock_offset = (rank % 3 - 1) * 1.7 + rank * 0.37 + (rank % 2 ? -86400.0 : 0.0);
    papcoll_monitor mon = nullptr;
    chk.expect_success(papcoll_monitor_create_config(MPI_COMM_WORLD, &cfg, &mon),
                       "create with clock offset");
    Tally t;
    const char* name = mode == PAPCOLL_MONITOR_EDGE ? "offsets/edge" : "offsets/history";
    papcoll::prediction::HistoryTable replica;  // the default predictor: SMA over 4
    for (int it = 0; it < 10; ++it) {
      MPI_Barrier(MPI_COMM_WORLD);
      MPI_Barrier(MPI_COMM_WORLD);
      Stamps st;
      st.begin = now_s();
      papcoll_monitor_begin(mon);
      const Clock::time_point start = Clock::now();
      sleep_until_ms(start, injected[rank] / 2);
      st.edge = now_s();
      st.fraction = 0.5;
      papcoll_monitor_edge(mon, 0.5);
      sleep_until_ms(start, injected[rank]);
      const std::string what = std::string(name) + " it " + std::to_string(it);
      st.entry = now_s();
      checked_allreduce(chk, opts(mon, "prr"), 128, 6000 + it, what);
      const SeenPattern s = agreed_pattern(chk, mon, what);
      const std::vector<Stamps> all = gather_stamps(st, p);
      std::vector<double> expected;
      if (mode == PAPCOLL_MONITOR_EDGE) {
        expected = expected_edge_pattern(all);
      } else {
        expected = replica.predict(0);
        replica.feed(0, actual_pattern(all));
      }
      if (it >= 2) t.add(s.pattern, expected, injected, late);
    }
    // The offsets are seconds: uncorrected, the error vs the true timestamps would be too.
    t.sync_ms = sync_error_ms(chk, mon, cfg.test_clock_offset, name);
    chk.expect(t.sync_ms < 1000.0, std::string(name) + ": offsets of seconds corrected");
    t.judge(chk, name);
    chk.expect_success(papcoll_monitor_free(&mon), "free");
  }
}

// Many quick iterations where everything varies at random, per rank where the API allows it
// (begin, edge, fraction, injected estimates, delays) and identically on all ranks where a
// collective requires it (algorithm, count including 0, site, explicit arrivals, which monitor).
void stress(Checker& chk, papcoll_monitor edge, papcoll_monitor hist) {
  const int p = chk.size(), rank = chk.rank();
  std::vector<double> user_arrivals(static_cast<size_t>(p));
  for (int it = 0; it < 250; ++it) {
    const uint64_t h = mix(21, it);           // same on every rank
    const uint64_t mine = mix(22, it, rank);  // this rank's own choices
    papcoll_monitor mon = h % 4 == 0 ? hist : edge;
    if (mine % 4 != 0) papcoll_monitor_begin(mon);
    if (mine % 7 == 0) sleep_ms(0.3);
    if (mine % 5 == 0)
      papcoll_monitor_test_inject(mon, kGarbage[(mine >> 8) % std::size(kGarbage)]);
    if (mine % 3 != 0)
      papcoll_monitor_edge(mon, 0.05 + static_cast<double>((mine >> 16) % 95) / 100.0);
    papcoll_options o =
        opts(mon, kAlgos[(h >> 8) % std::size(kAlgos)], static_cast<int>((h >> 16) % 3));
    if ((h >> 24) % 9 == 0) {  // explicit arrivals win; the monitor still counts the call
      for (int r = 0; r < p; ++r)
        user_arrivals[r] = static_cast<double>(mix(23, it, r) % 100) * 1e-4;
      o.arrivals = user_arrivals.data();
      o.arrivals_agreed = 1;
    }
    const int count = (h >> 32) % 11 == 0 ? 0 : static_cast<int>(1 + (h >> 40) % 300);
    const std::string what = "stress it " + std::to_string(it);
    checked_allreduce(chk, o, count, 7000 + it, what);
    if (it % 5 == 0 || it > 240) agreed_pattern(chk, mon, what);
  }
}

void misuse(Checker& chk, papcoll_monitor mon) {
  const int p = chk.size();
  chk.expect_code(papcoll_monitor_edge(mon, 0.5), PAPCOLL_ERR_ARG, "edge without begin");
  chk.expect_success(papcoll_monitor_begin(mon), "begin");
  for (double f : {0.0, -0.5, 1.5, kNaN, kInf})
    chk.expect_code(papcoll_monitor_edge(mon, f), PAPCOLL_ERR_ARG, "edge with bad fraction");
  chk.expect_success(papcoll_monitor_edge(mon, 0.5), "first edge");
  chk.expect_success(papcoll_monitor_edge(mon, 0.9), "second edge (ignored)");
  checked_allreduce(chk, opts(mon, "prr"), 10, 8000, "after misuse");
  agreed_pattern(chk, mon, "after misuse");
  double pat[1];
  chk.expect_code(papcoll_monitor_pattern(mon, pat, p + 1, nullptr), PAPCOLL_ERR_ARG,
                  "pattern with a wrong count");
  chk.expect_code(papcoll_monitor_begin(nullptr), PAPCOLL_ERR_ARG, "begin(NULL)");
  chk.expect_code(papcoll_monitor_edge(nullptr, 0.5), PAPCOLL_ERR_ARG, "edge(NULL)");
  chk.expect_code(papcoll_monitor_free(nullptr), PAPCOLL_ERR_ARG, "free(NULL)");
  papcoll_monitor null_mon = nullptr;
  chk.expect_code(papcoll_monitor_free(&null_mon), PAPCOLL_ERR_ARG, "free(&NULL)");
  chk.expect_code(papcoll_monitor_create(MPI_COMM_WORLD, nullptr), PAPCOLL_ERR_ARG,
                  "create into NULL");
  papcoll_monitor_config cfg;
  papcoll_monitor_config_init(&cfg);
  cfg.window = 0;
  papcoll_monitor bad = reinterpret_cast<papcoll_monitor>(&cfg);
  chk.expect_code(papcoll_monitor_create_config(MPI_COMM_WORLD, &cfg, &bad), PAPCOLL_ERR_ARG,
                  "create with window 0");
  chk.expect(bad == nullptr, "failed create sets NULL");
  chk.expect_code(papcoll_monitor_begin(reinterpret_cast<papcoll_monitor>(&cfg)), PAPCOLL_ERR_ARG,
                  "begin on garbage");
  // A monitor of another communicator: refused before any communication, on every rank.
  if (p > 1) {
    papcoll_monitor self_mon = nullptr;
    chk.expect_success(papcoll_monitor_create(MPI_COMM_SELF, &self_mon), "create on SELF");
    int x = 1, y = 0;
    papcoll_options o = opts(self_mon, "ring");
    chk.expect_code(papcoll_allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &o),
                    PAPCOLL_ERR_ARG, "monitor of another communicator");
    chk.expect_success(papcoll_monitor_free(&self_mon), "free SELF monitor");
  }
  // The monitor still works after all that.
  checked_allreduce(chk, opts(mon, "slt"), 33, 8001, "after misuse 2");
  agreed_pattern(chk, mon, "after misuse 2");
}

}  // namespace

int main(int argc, char** argv) {
  init_multiple(&argc, &argv);
  int code = 0;
  {
    Checker chk("test_monitor_agreement");
    papcoll_monitor edge = nullptr, hist = nullptr;
    chk.expect_success(papcoll_monitor_create(MPI_COMM_WORLD, &edge), "create edge");
    papcoll_monitor_config cfg;
    papcoll_monitor_config_init(&cfg);
    cfg.mode = PAPCOLL_MONITOR_HISTORY;
    cfg.predictor = PAPCOLL_PREDICT_EMA;
    chk.expect_success(papcoll_monitor_create_config(MPI_COMM_WORLD, &cfg, &hist), "create hist");

    in_flight(chk, edge);
    never_edge(chk, edge);
    nobody_edges(chk, edge);
    different_fractions(chk, edge);
    garbage(chk, edge);
    clock_offsets(chk);
    stress(chk, edge, hist);
    misuse(chk, edge);

    chk.expect_success(papcoll_monitor_free(&edge), "free edge");
    chk.expect_success(papcoll_monitor_free(&hist), "free hist");
    code = chk.finish();
  }
  MPI_Finalize();
  return code;
}
