// papcoll-bench results: statistics over iterations, the text table and the JSON document.
#pragma once

#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "papcoll_bench_delta.hpp"
#include "papcoll_bench_options.hpp"
#include "papcoll_bench_verdict.hpp"

namespace papcoll_bench {

struct Stats {
  int n = 0;
  double mean = 0, stddev = 0, median = 0, min = 0, max = 0;  // stddev: sample (n-1), 0 if n<2
};
Stats summarize(const std::vector<double>& samples);

// One algorithm in one (size, max delay) configuration.
struct AlgoResult {
  std::string algorithm;
  PatMode pat = PatMode::oracle;  // where papcoll got the arrival pattern from
  // Per measured iteration: mean absolute error (ms) of the pattern papcoll used vs the injected
  // one, both relative to their earliest rank. Empty when papcoll was not involved (native).
  std::vector<double> pred_err_ms;
  int source_counts[3] = {0, 0, 0};  // monitor patterns by source: none, edge, history
  std::vector<double> samples_ms;    // per measured iteration: average over ranks of elapsed
  // Per measured iteration: the post-arrival time P (mean over ranks of finish - last arrival)
  // and the arrival lag (last arrival - mean arrival); P + lag = the samples_ms entry.
  std::vector<double> post_arrival_ms;
  std::vector<double> arrival_lag_ms;
  std::vector<double> rank_sum_ms;  // per rank: sum over measured iterations of its elapsed
  // What papcoll ran (papcoll_last_algorithm() on rank 0) in the measured iterations, with how
  // many iterations each, in order of first use: auto's choices; for a named algorithm its own
  // name. Empty for native.
  std::vector<std::pair<std::string, int>> ran;
  // What papcoll weighed and sized the schedules with beyond alpha and beta
  // (papcoll_last_executor_costs after the row's latest call on rank 0; zeros for native).
  double step_overhead_s = 0, exchange_alpha_s = 0, exchange_beta_s_per_byte = 0;
  int incorrect_iterations = 0;  // some rank's output differed from MPI_Allreduce's
  int error_iterations = 0;      // some rank's call returned an error
  std::string error_message;     // first error seen on rank 0 (or a note that it was elsewhere)
  bool correct() const { return incorrect_iterations == 0 && error_iterations == 0; }
};

struct ConfigResult {
  long long count = 0;
  double max_delay_ms = 0;
  std::vector<AlgoResult> algos;
  const AlgoResult* find(const std::string& name) const;
  // The ring row with a's pat (else the first ring row); nullptr without one.
  const AlgoResult* ring_for(const AlgoResult& a) const;
  // ring mean / alg mean; negative when ring was not run or either has no samples.
  double speedup_vs_ring(const AlgoResult& a) const;
};

// One iteration's arrivals and finishes, every rank's in seconds on P's time line (one clock, or
// from its own exit from the barriers that start the iteration): P = mean(finish) -
// max(arrival), lag = max(arrival) - mean(arrival), both in ms.
struct PostArrival {
  double post_arrival_ms = 0;
  double arrival_lag_ms = 0;
};
PostArrival post_arrival(const std::vector<double>& arrival_s, const std::vector<double>& finish_s);

struct RunInfo {
  BenchOptions opt;  // with the algorithm list filled in
  int p = 1;
  std::string mpi_library;    // MPI_Get_library_version, first line
  std::string thread_level;   // what MPI provided (MPI_THREAD_MULTIPLE with --pat monitor)
  DeltaParams delta;          // alpha, beta of the yardstick delta (delta_params())
  bool shared_clock = false;  // P's time line: one clock for all ranks, else barrier exits
  double wall_s = 0;
};

// delta = alpha + n beta for the configuration's whole buffer (count elements of the dtype), ms.
double config_delta_ms(const RunInfo& info, const ConfigResult& c);

// A papcoll row against the native row with the same pat in one configuration
// (docs/papcoll-bench.md, "Verdict"): the ratio of mean elapsed over the iterations both ran,
// its bootstrap interval, and P/delta of both over the same iterations.
struct Verdict {
  const AlgoResult* row = nullptr;
  const AlgoResult* native = nullptr;
  PairedRatio ratio;
  double post_arrival_over_delta = 0, native_post_arrival_over_delta = 0;
  // verdict_word(ratio), or "failed" when either row had an error or a wrong result.
  std::string word;
};
// One verdict per papcoll row that has a native row with its pat, in the table's order.
std::vector<Verdict> case_verdicts(const RunInfo& info, const ConfigResult& c);
// "verdict allreduce 1M one-late 20ms oracle: auto (late-fold) 0.81x native, faster (...)".
std::string verdict_line(const RunInfo& info, const ConfigResult& c, const Verdict& v);
// The case of a verdict: "allreduce 1M one-late 20ms oracle" ("none" takes no delay).
std::string case_label(const RunInfo& info, const ConfigResult& c, PatMode pat);
// What a row ran: "late-fold", or "late-fold:30;ring:2" when auto's choice changed.
std::string ran_label(const AlgoResult& a);

void print_header(std::ostream& os, const RunInfo& info);
// The configuration's table, then its verdict lines.
void print_table(std::ostream& os, const RunInfo& info, const ConfigResult& c);
void write_json(std::ostream& os, const RunInfo& info, const std::vector<ConfigResult>& configs);
// --csv: one row per (configuration, algorithm, pat), columns in docs/papcoll-bench.md.
void write_csv(std::ostream& os, const RunInfo& info, const std::vector<ConfigResult>& configs);

// "12.3", "0.5": milliseconds without useless zeros.
std::string format_ms(double ms);

}  // namespace papcoll_bench
