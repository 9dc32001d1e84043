// Shared by the progress-monitor MPI tests: one checked all-reduce step, the cross-rank check that
// every rank ran with the same pattern, and small timing helpers.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "mpi_check.hpp"
#include "papcoll/papcoll.h"
#include "prediction/agreement.hpp"
#include "prediction/monitor.hpp"
#include "prediction/predictor.hpp"

namespace papcoll_test {

inline void sleep_ms(double ms) {
  if (ms > 0) std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(ms));
}

// MPI with MPI_THREAD_MULTIPLE (the edge mode's thread needs it). Returns the provided level.
inline int init_multiple(int* argc, char*** argv) {
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
  return provided;
}

// papcoll_allreduce of `count` ints (MPI_SUM) with the given options; every rank knows every
// rank's input, so each checks the whole result locally. Returns papcoll's code; a wrong element
// is reported through `chk` (one expect per call on every rank).
inline int checked_allreduce(Checker& chk, const papcoll_options& opt, int count, uint64_t seed,
                             const std::string& what) {
  const int p = chk.size(), rank = chk.rank();
  std::vector<int> in(static_cast<size_t>(count)), out(static_cast<size_t>(count), -7);
  auto value = [&](int r, int i) {
    return static_cast<int>(mix(seed, static_cast<uint64_t>(r), static_cast<uint64_t>(i)) % 2001) -
           1000;
  };
  for (int i = 0; i < count; ++i) in[i] = value(rank, i);
  const int rc =
      papcoll_allreduce(in.data(), out.data(), count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &opt);
  int bad = -1;
  if (rc == PAPCOLL_SUCCESS) {
    for (int i = 0; i < count && bad < 0; ++i) {
      long want = 0;
      for (int r = 0; r < p; ++r) want += value(r, i);
      if (out[i] != want) bad = i;
    }
  }
  chk.expect(rc == PAPCOLL_SUCCESS && bad < 0,
             what + ": rc=" + std::to_string(rc) + " (" +
                 (rc == PAPCOLL_SUCCESS ? std::string("") : std::string(papcoll_last_error())) +
                 ") first wrong element " + std::to_string(bad));
  return rc;
}

struct SeenPattern {
  std::vector<double> pattern;  // relative seconds
  int source = -1;
};

// The monitor's pattern of the latest call on this rank, and a check that it is bit-identical on
// every rank (with the source): the property that keeps schedules from deadlocking.
inline SeenPattern agreed_pattern(Checker& chk, papcoll_monitor mon, const std::string& what) {
  const int p = chk.size();
  SeenPattern s;
  s.pattern.assign(static_cast<size_t>(p), -1.0);
  const int rc = papcoll_monitor_pattern(mon, s.pattern.data(), p, &s.source);
  std::vector<double> mine(s.pattern);
  mine.push_back(static_cast<double>(s.source));
  mine.push_back(rc);
  std::vector<double> all(mine.size() * static_cast<size_t>(p));
  MPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(),
                static_cast<int>(mine.size()), MPI_DOUBLE, MPI_COMM_WORLD);
  bool same = true;
  for (int r = 1; r < p; ++r)
    same = same &&
           std::memcmp(all.data(), all.data() + r * mine.size(), mine.size() * sizeof(double)) == 0;
  chk.expect(rc == PAPCOLL_SUCCESS && same,
             what + ": pattern/source not bit-identical on every rank (rc " + std::to_string(rc) +
                 ")");
  return s;
}

// Mean absolute error (ms) of a pattern against the injected arrivals (ms), both shifted to
// their earliest entry.
inline double error_ms(const std::vector<double>& pattern_s,
                       const std::vector<double>& injected_ms) {
  const double lo_p = *std::min_element(pattern_s.begin(), pattern_s.end());
  const double lo_i = *std::min_element(injected_ms.begin(), injected_ms.end());
  double sum = 0;
  for (size_t i = 0; i < pattern_s.size(); ++i)
    sum += std::fabs((pattern_s[i] - lo_p) * 1e3 - (injected_ms[i] - lo_i));
  return sum / static_cast<double>(pattern_s.size());
}

// Timestamps a rank takes around one iteration, on std::chrono::steady_clock (CLOCK_MONOTONIC),
// which all processes of one host share: the tests run on one host, so the test can know every
// rank's true arrival and compare the monitor's pattern with what it should have been, apart from
// the injected one (which the scheduler blurs on oversubscribed cores).
struct Stamps {
  double begin = std::numeric_limits<double>::quiet_NaN();
  double edge = std::numeric_limits<double>::quiet_NaN();
  double fraction = std::numeric_limits<double>::quiet_NaN();
  double entry = std::numeric_limits<double>::quiet_NaN();
};

inline double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

inline std::vector<Stamps> gather_stamps(const Stamps& mine, int p) {
  static_assert(sizeof(Stamps) == 4 * sizeof(double));
  std::vector<Stamps> all(static_cast<size_t>(p));
  MPI_Allgather(&mine, 4, MPI_DOUBLE, all.data(), 4, MPI_DOUBLE, MPI_COMM_WORLD);
  return all;
}

// The true arrival pattern (seconds, relative to the earliest).
inline std::vector<double> actual_pattern(const std::vector<Stamps>& s) {
  std::vector<double> a;
  for (const Stamps& x : s) a.push_back(x.entry);
  return papcoll::prediction::relative_to_earliest(a);
}

// What the edge exchange should agree on, recomputed from the test's own timestamps with the
// library's rule (the rule itself is unit-tested): estimates at edge(), arrivals at entry for
// ranks without an edge.
inline std::vector<double> expected_edge_pattern(const std::vector<Stamps>& s) {
  using namespace papcoll::prediction;
  std::vector<Contribution> c;
  for (const Stamps& x : s) {
    if (std::isfinite(x.edge))
      c.push_back(Contribution{x.edge + estimate_remaining(x.edge - x.begin, x.fraction), x.edge,
                               static_cast<double>(ContributionKind::edge), 0});
    else
      c.push_back(Contribution{x.entry, x.entry, static_cast<double>(ContributionKind::entry), 0});
  }
  const AgreedPattern a = sanitize_contributions(c);
  return a.usable ? a.relative : std::vector<double>(s.size(), 0.0);
}

// Mean absolute difference (ms) of two patterns in seconds.
inline double diff_ms(const std::vector<double>& a, const std::vector<double>& b) {
  return papcoll::prediction::pattern_mean_abs_error(a, b) * 1e3;
}

inline int argmax(const std::vector<double>& v);
inline double median(std::vector<double> v);

// The monitor's clock-offset error, known exactly here: the processes of one host share
// steady_clock, so the true offset of a rank is the difference of the artificial test offsets.
// Checks the property the measurement guarantees under any load (the truth lies in the interval it
// reports) and returns the largest error over the ranks, in ms (the same on every rank): under
// heavy oversubscription the interval can stay milliseconds wide, and that is then how far any
// pattern can be off.
inline double sync_error_ms(Checker& chk, papcoll_monitor mon, double my_test_offset,
                            const std::string& what) {
  double offset0 = my_test_offset;
  MPI_Bcast(&offset0, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  const papcoll::prediction::MonitorLease m = papcoll::prediction::monitor_from_handle(mon);
  double err = 0;
  if (m != nullptr) {
    const papcoll::prediction::ClockSync cs = m->clock_sync();
    err = std::fabs(cs.offset - (my_test_offset - offset0));
    chk.expect(err <= cs.width / 2 + 1e-7,
               what + ": true clock offset outside the measured interval (error " +
                   std::to_string(err * 1e3) + " ms, half width " +
                   std::to_string(cs.width * 0.5e3) + " ms)");
  }
  MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return err * 1e3;
}

// The judged iterations of one scenario. Each iteration gives the monitor's pattern, the injected
// one and the "ideal" one: what the monitor should have computed from the true timestamps.
struct Tally {
  std::vector<double> mech;   // monitor vs ideal (ms): the mechanism (exchange, offsets, rules)
  std::vector<double> inj;    // monitor vs injected (ms): what a user sees
  std::vector<double> noise;  // ideal vs injected (ms): how far the processes really followed the
                              // injection (oversubscribed cores wake ranks late)
  int found = 0, ideal_found = 0, judged = 0;
  double sync_ms = 0;  // the monitor's largest clock-offset error (sync_error_ms)

  void add(const std::vector<double>& seen_s, const std::vector<double>& ideal_s,
           const std::vector<double>& injected_ms, int late) {
    ++judged;
    const bool have_ideal = !ideal_s.empty();
    if (have_ideal) {
      mech.push_back(papcoll::prediction::pattern_mean_abs_error(seen_s, ideal_s) * 1e3);
      noise.push_back(error_ms(ideal_s, injected_ms));
      ideal_found += argmax(ideal_s) == late || seen_s.size() == 1 ? 1 : 0;
    }
    inj.push_back(error_ms(seen_s, injected_ms));
    found += argmax(seen_s) == late || seen_s.size() == 1 ? 1 : 0;
  }

  // The mechanism must be exact up to timestamp noise and the clock-offset error (median < 1 ms
  // + that error). Against the injected pattern the prediction must be within 2 ms (median) of
  // what the ranks really did (+ the offset error), and find the late rank about as often as the
  // true timestamps show it late (unless the offsets are off by more than 2 ms: then the late
  // rank may rightly look different).
  void judge(Checker& chk, const std::string& name) const {
    const double m = median(mech), i = median(inj), n = median(noise);
    if (chk.rank() == 0)
      std::printf("  %s: median error %.3f ms vs true timestamps, %.3f ms vs injected (the true "
                  "arrivals: %.3f ms); late rank found %d/%d (true arrivals: %d); clock offsets "
                  "off by up to %.3f ms\n",
                  name.c_str(), m, i, n, found, judged, ideal_found, sync_ms);
    chk.expect(m < 1.0 + sync_ms,
               name + ": median error vs true timestamps " + std::to_string(m) + " ms");
    chk.expect(i < 2.0 + n + sync_ms, name + ": median error vs injected " + std::to_string(i) +
                                          " ms, the true arrivals' " + std::to_string(n) + " ms");
    chk.expect(sync_ms > 2.0 || found * 10 + 10 >= ideal_found * 8,
               name + ": late rank found " + std::to_string(found) + "/" + std::to_string(judged) +
                   ", in the true arrivals " + std::to_string(ideal_found));
  }
};

inline int argmax(const std::vector<double>& v) {
  return static_cast<int>(std::max_element(v.begin(), v.end()) - v.begin());
}

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace papcoll_test
