// Sampling of the history's measured exchange (docs/prediction.md, "Sampling"): a
// balanced call site is measured on one call in history_sample, an imbalanced one on every call,
// and every rank decides alike (Monitor::quiet_call, what the LD_PRELOAD library asks before
// running the MPI library's collective directly). Results stay exact on every path.
#include <mpi.h>

#include <string>
#include <vector>

#include "mpi_check.hpp"
#include "papcoll/papcoll.h"
#include "prediction/monitor.hpp"
#include "test_monitor_util.hpp"

using namespace papcoll_test;
namespace pp = papcoll::prediction;

namespace {

void native_call(Checker& chk, int it, const std::string& what) {
  const int p = chk.size(), rank = chk.rank();
  std::vector<int> in(64, rank + it), out(64, -1);
  MPI_Allreduce(in.data(), out.data(), 64, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  const int want = p * (p - 1) / 2 + p * it;
  for (int v : out) chk.expect(v == want, what + ": native result");
}

void papcoll_call(Checker& chk, papcoll_monitor m, int site, int it, const std::string& what,
                  const char* algorithm) {
  papcoll_options o;
  papcoll_options_init(&o);
  o.monitor = m;
  o.monitor_site = site;
  o.algorithm = algorithm;
  checked_allreduce(chk, o, 64, static_cast<uint64_t>(it), what);
}

// One call of `site`: quiet -> the MPI library directly, as the interposition library does; else
// papcoll's allreduce with the monitor and `algorithm` (nullptr: auto). Returns whether it was
// quiet.
bool one_call(Checker& chk, papcoll_monitor m, int site, int it, const std::string& what,
              const char* algorithm = nullptr) {
  const bool quiet = pp::monitor_quiet_call(m, site);
  if (quiet)
    native_call(chk, it, what);
  else
    papcoll_call(chk, m, site, it, what, algorithm);
  return quiet;
}

// The interposition library's way (intercept.cpp handed_out_quiet_call): a quiet answer also
// hands out how many of the site's next calls are quiet; they run without asking and are
// counted (count_quiet) before the next question. `ahead`: handed out and not run; `ran`: run
// and not counted.
struct HandedOut {
  int ahead = 0, ran = 0;
  std::vector<int> following;  // what each question handed out (-1: not quiet)
};
bool one_call_handed(Checker& chk, papcoll_monitor m, int site, int it, const std::string& what,
                     HandedOut* h, const char* algorithm = nullptr) {
  if (h->ahead > 0) {
    --h->ahead;
    ++h->ran;
    native_call(chk, it, what);
    return true;
  }
  pp::monitor_count_quiet(m, site, h->ran);
  h->ran = 0;
  int following = -1;
  const bool quiet = pp::monitor_quiet_call(m, site, &following);
  h->following.push_back(quiet ? following : -1);
  if (quiet) {
    h->ahead = following;
    native_call(chk, it, what);
  } else {
    papcoll_call(chk, m, site, it, what, algorithm);
  }
  return quiet;
}

// Every rank got the same sequence of answers.
void expect_agreed(Checker& chk, const std::vector<int>& quiet, const std::string& what) {
  std::vector<int> all(quiet.size() * static_cast<size_t>(chk.size()));
  MPI_Allgather(quiet.data(), static_cast<int>(quiet.size()), MPI_INT, all.data(),
                static_cast<int>(quiet.size()), MPI_INT, MPI_COMM_WORLD);
  for (size_t i = 0; i < all.size(); ++i)
    chk.expect(all[i] == quiet[i % quiet.size()], what + ": every rank decides alike");
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int code = 0;
  {
    Checker chk("test_monitor_sampling");
    const int p = chk.size();
    papcoll_monitor_config cfg;
    papcoll_monitor_config_init(&cfg);
    chk.expect(cfg.history_sample == 1, "the API's default measures every call");
    cfg.mode = PAPCOLL_MONITOR_HISTORY;

    // Out-of-range sampling settings are refused on every rank.
    papcoll_monitor bad = nullptr;
    cfg.history_sample = 0;
    chk.expect_code(papcoll_monitor_create_config(MPI_COMM_WORLD, &cfg, &bad), PAPCOLL_ERR_ARG,
                    "history_sample 0");
    cfg.history_sample = 4;
    cfg.history_spread = -1;
    chk.expect_code(papcoll_monitor_create_config(MPI_COMM_WORLD, &cfg, &bad), PAPCOLL_ERR_ARG,
                    "negative history_spread");

    // Balanced (a spread of 1 s counts as balanced here, so scheduling noise cannot decide):
    // measured on calls 0, 4, 8 (the first call of a site and then one in four).
    cfg.history_spread = 1.0;
    papcoll_monitor m = nullptr;
    chk.expect_success(papcoll_monitor_create_config(MPI_COMM_WORLD, &cfg, &m), "sampling 4");
    const long before = pp::debug_counters().measured;
    std::vector<int> quiet;
    for (int it = 0; it < 12; ++it) quiet.push_back(one_call(chk, m, 7, it, "balanced"));
    const std::vector<int> want = {0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1};
    if (p > 1) {
      chk.expect(quiet == want, "balanced: quiet on 3 calls in 4");
      chk.expect(pp::debug_counters().measured - before == 3, "balanced: 3 of 12 calls measured");
    }
    expect_agreed(chk, quiet, "balanced");
    chk.expect_success(papcoll_monitor_free(&m), "free");

    // The same with the quiet calls handed out ahead: a quiet answer says how many of the next
    // calls are quiet too (2 after call 1, whose count is then 1 of 4), and running them without
    // asking, then counting them, leaves every decision as it was.
    chk.expect_success(papcoll_monitor_create_config(MPI_COMM_WORLD, &cfg, &m), "handed out");
    const long b1 = pp::debug_counters().measured;
    HandedOut h;
    quiet.clear();
    for (int it = 0; it < 12; ++it) quiet.push_back(one_call_handed(chk, m, 7, it, "handed", &h));
    if (p > 1) {
      chk.expect(quiet == want, "handed out: quiet on 3 calls in 4");
      chk.expect(h.following == std::vector<int>{-1, 2, -1, 2, -1, 2},
                 "handed out: 2 more after each first quiet call");
      chk.expect(pp::debug_counters().measured - b1 == 3, "handed out: 3 of 12 calls measured");
    }
    expect_agreed(chk, quiet, "handed out");
    chk.expect_success(papcoll_monitor_free(&m), "free");

    // Two sites interleaved, each with its hand-out: another site's calls in between change
    // nothing of a site's decisions, so both keep the decisions of asking every call (measured
    // on their calls 0, 4, 8), with every used hand-out counted before any question.
    chk.expect_success(papcoll_monitor_create_config(MPI_COMM_WORLD, &cfg, &m), "two sites");
    {
      HandedOut h[2];
      std::vector<int> q2[2];
      for (int it = 0; it < 24; ++it) {
        const int k = it % 2, site = 21 + k;
        if (h[k].ahead > 0) {
          --h[k].ahead;
          ++h[k].ran;
          native_call(chk, it, "two sites");
          q2[k].push_back(1);
          continue;
        }
        for (int j = 0; j < 2; ++j) {
          pp::monitor_count_quiet(m, 21 + j, h[j].ran);
          h[j].ran = 0;
        }
        int following = -1;
        const bool q = pp::monitor_quiet_call(m, site, &following);
        if (q) {
          h[k].ahead = following;
          native_call(chk, it, "two sites");
        } else {
          papcoll_call(chk, m, site, it, "two sites", nullptr);
        }
        q2[k].push_back(q);
      }
      if (p > 1)
        for (int k = 0; k < 2; ++k)
          chk.expect(q2[k] == want, "two sites: site " + std::to_string(k) + " as if asked");
      expect_agreed(chk, q2[0], "two sites");
    }
    chk.expect_success(papcoll_monitor_free(&m), "free");

    // A site's own interval (the interposition library's, from the bytes): every = 8 given from
    // the second call on (the first is measured before any question) makes the site measured on
    // calls 0, 8 and 16 although the monitor samples one in 4.
    chk.expect_success(papcoll_monitor_create_config(MPI_COMM_WORLD, &cfg, &m), "every 8");
    quiet.clear();
    std::vector<int> handed;
    for (int it = 0; it < 20; ++it) {
      int following = -1;
      const bool q = pp::monitor_quiet_call(m, 11, &following, 8);
      if (q)
        native_call(chk, it, "every 8");
      else
        papcoll_call(chk, m, 11, it, "every 8", nullptr);
      quiet.push_back(q);
      handed.push_back(q ? following : -1);
    }
    if (p > 1) {
      std::vector<int> want8(20, 1);
      want8[0] = want8[8] = want8[16] = 0;
      chk.expect(quiet == want8, "every 8: measured on calls 0, 8 and 16");
      chk.expect(handed[1] == 6 && handed[7] == 0 && handed[9] == 6,
                 "every 8: 6 more quiet calls after the first quiet one");
    }
    expect_agreed(chk, quiet, "every 8");
    chk.expect_success(papcoll_monitor_free(&m), "free");

    // Imbalanced: rank 1 is 20 ms late on every call; from the second call on, every call is
    // measured and none is quiet, and the pattern shows the late rank. PRR reads the arrival
    // times (auto may judge 64 integers not worth acting on: see "Unused" below).
    if (p > 1) {
      cfg.history_spread = 1e-3;
      chk.expect_success(papcoll_monitor_create_config(MPI_COMM_WORLD, &cfg, &m), "imbalanced");
      const long b2 = pp::debug_counters().measured;
      quiet.clear();
      for (int it = 0; it < 6; ++it) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (chk.rank() == 1) sleep_ms(20);
        quiet.push_back(one_call(chk, m, 9, it, "imbalanced", "prr"));
      }
      chk.expect(quiet == std::vector<int>(6, 0), "imbalanced: never quiet");
      chk.expect(pp::debug_counters().measured - b2 == 6, "imbalanced: every call measured");
      expect_agreed(chk, quiet, "imbalanced");
      std::vector<double> pat(static_cast<size_t>(p));
      int source = 0;
      chk.expect_success(papcoll_monitor_pattern(m, pat.data(), p, &source), "pattern");
      chk.expect(source == PAPCOLL_PATTERN_HISTORY && pat[1] > 0.01,
                 "the history sees rank 1 late: " + std::to_string(pat[1]));
      chk.expect_success(papcoll_monitor_free(&m), "free");
    }

    // Unused: rank 1 is 20 ms late on every call, but the ring reads no arrival times: after
    // kUnusedCalls (4) calls that did not use their imbalanced prediction (calls 1-4) the site is
    // sampled as if balanced, one call in four, and a sample gets no prediction.
    if (p > 1) {
      cfg.history_spread = 1e-3;
      chk.expect_success(papcoll_monitor_create_config(MPI_COMM_WORLD, &cfg, &m), "unused");
      long b3 = pp::debug_counters().measured;
      std::vector<double> pat(static_cast<size_t>(p), -1);
      int source = -1;
      auto run = [&](int from, int to, int late_ms, const char* algorithm, const char* what) {
        quiet.clear();
        for (int it = from; it < to; ++it) {
          MPI_Barrier(MPI_COMM_WORLD);
          if (chk.rank() == 1) sleep_ms(late_ms);
          quiet.push_back(one_call(chk, m, 13, it, what, algorithm));
          if (it == 12) {  // a sample
            chk.expect_success(papcoll_monitor_pattern(m, pat.data(), p, &source), "pattern");
            chk.expect(source == PAPCOLL_PATTERN_NONE,
                       "a sample has no prediction (source " + std::to_string(source) + ")");
          }
        }
        expect_agreed(chk, quiet, what);
      };
      run(0, 16, 20, "ring", "unused");
      // 0-4 measured, 5-7 quiet, 8 a sample, 9-11 quiet, 12 a sample, 13-15 quiet.
      chk.expect(quiet == std::vector<int>{0, 0, 0, 0, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1},
                 "unused: sampled after four unused predictions");
      chk.expect(pp::debug_counters().measured - b3 == 7, "unused: 7 of 16 calls measured");

      // Rank 1 now 100 ms late, more than kConfirmGrowth (2) times the unused 20 ms: the sample
      // (16) is confirmed on the next call (17), which the ring does not use either.
      b3 = pp::debug_counters().measured;
      run(16, 22, 100, "ring", "larger");
      chk.expect(quiet == std::vector<int>{0, 0, 1, 1, 1, 0},
                 "larger: a sample more imbalanced than the unused ones is confirmed");
      chk.expect(pp::debug_counters().measured - b3 == 3, "larger: 3 of 6 calls measured");

      // Then PRR, which reads arrival times, on the same site with rank 1 20 ms late: its first
      // call (the sample at 25) starts over, and from then on every call is measured and
      // predicted again.
      run(22, 30, 20, "prr", "used");
      chk.expect(quiet == std::vector<int>{1, 1, 1, 0, 0, 0, 0, 0},
                 "used: measured again after a call that reads arrival times");
      chk.expect_success(papcoll_monitor_pattern(m, pat.data(), p, &source), "pattern");
      chk.expect(source == PAPCOLL_PATTERN_HISTORY && pat[1] > 0.01,
                 "used: the history sees rank 1 late: " + std::to_string(pat[1]));
      chk.expect_success(papcoll_monitor_free(&m), "free");

      // The unused site with its quiet calls handed out ahead: the same decisions.
      chk.expect_success(papcoll_monitor_create_config(MPI_COMM_WORLD, &cfg, &m), "unused ahead");
      b3 = pp::debug_counters().measured;
      HandedOut h;
      quiet.clear();
      for (int it = 0; it < 16; ++it) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (chk.rank() == 1) sleep_ms(20);
        quiet.push_back(one_call_handed(chk, m, 13, it, "unused ahead", &h, "ring"));
      }
      expect_agreed(chk, quiet, "unused ahead");
      chk.expect(quiet == std::vector<int>{0, 0, 0, 0, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1},
                 "unused ahead: the decisions of asking every call");
      chk.expect(pp::debug_counters().measured - b3 == 7, "unused ahead: 7 of 16 calls measured");
      chk.expect_success(papcoll_monitor_free(&m), "free");
    }
    code = chk.finish();
  }
  MPI_Finalize();
  return code;
}
