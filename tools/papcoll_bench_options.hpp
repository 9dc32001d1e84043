// papcoll-bench command line: the options of the imbalance benchmark and their parser.
// No MPI here: every rank parses the same argv with the same code, so a bad command line is
// rejected identically on all ranks (exit 2, no hang). See docs/papcoll-bench.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace papcoll_bench {

// --mode: who arrives late (docs/papcoll-bench.md, Method). k_late and staggered have a count K
// of late ranks (BenchOptions::late_count).
enum class DelayMode { none, one_late, rand_late, k_late, staggered };
// Where papcoll gets the arrival pattern from: the injected delays (oracle), the progress
// monitor's edge() exchange (monitor), the monitor's history predictor (history), nowhere (none).
enum class PatMode { oracle, monitor, history, none };
enum class Predictor { last, sma, ema };  // --predictor, for history (and monitor's fallback)
enum class Dtype { float32, float64, int32, int64 };  // --dtype float|double|int|long
// --shape: who contributes what to an all-gatherv of --size elements in all.
enum class Shape { regular, irregular, degenerate };
// --counts-dist: how a scatterv/gatherv splits --size elements among the ranks
// (papcoll_bench_counts.hpp).
enum class CountsDist { equal, cpu_speed, cpu_speed_measured, ratio };

const char* delay_mode_name(DelayMode m);          // "k-late"
std::string delay_mode_label(DelayMode m, int k);  // "k-late:3", as --mode spells it
const char* pat_mode_name(PatMode m);
const char* predictor_name(Predictor p);
const char* dtype_name(Dtype d);
const char* shape_name(Shape s);
std::string counts_dist_label(CountsDist d, double ratio);  // "equal", "ratio:100", ...
int dtype_size(Dtype d);
bool dtype_is_float(Dtype d);

struct BenchOptions {
  std::string op = "allreduce";
  std::vector<std::string> algorithms;    // empty: the op's default list (filled in by main)
  std::vector<long long> sizes{1 << 20};  // elements
  Dtype dtype = Dtype::float32;
  Shape shape = Shape::regular;                // allgatherv only
  CountsDist counts_dist = CountsDist::equal;  // scatterv/gatherv only
  double counts_ratio = 1;                     // --counts-dist ratio:R
  std::string model_path;  // --model: papcoll_options.model_file (scatterv/gatherv trees)
  int iters = 32;
  int warmup = 3;
  DelayMode mode = DelayMode::one_late;
  int late_count = 1;  // K of --mode k-late:K / staggered:K
  std::vector<double> max_delays_ms{20.0};
  double compute_ms = 10.0;  // the paper's "+100 ms" base of the emulated computation
  std::vector<PatMode> pats{PatMode::oracle};  // a list runs every algorithm with each, interleaved
  Predictor predictor = Predictor::sma;
  int window = 4;           // SMA window
  double ema_alpha = 0.5;   // EMA weight of the newest pattern
  int warmup_messages = 1;  // monitor: warm-up messages per ring neighbour after the exchange
  bool oracle_with_monitor = false;  // oracle runs also run the edge monitor (its pattern unused)
  int blocks = 0;                    // 0: algorithm default
  double alpha = 0, beta = 0, gamma = 0;  // --alpha/--beta/--gamma: papcoll_options' Hockney
                                          // parameters (0: papcoll's defaults)
  std::uint64_t seed = 1;
  std::string json_path;  // empty: no JSON
  std::string csv_path;   // empty: no CSV
  bool quiet = false;
  // --no-check: no reference collective per iteration and no output check (timing only): for
  // large simulations whose buffers SimGrid folds (--cfg=smpi/auto-shared-malloc-thresh), where
  // the data is meaningless anyway.
  bool check = true;
};

struct ParseResult {
  enum Kind { run, help, error } kind = run;
  std::string message;  // the error (kind == error) or the help text (kind == help)
};

// Parses argv[1..argc-1] into `out` (which starts from the defaults above) with CLI11
// (tools/cli_common.hpp). Accepts "--opt value" and "--opt=value"; a repeated option keeps its
// last value.
ParseResult parse_bench_options(int argc, const char* const* argv, BenchOptions& out);

// Checks what the parser cannot know: a k-late:K / staggered:K mode needs K < p. Returns "" or an
// error message. The same on every rank (it depends on the options and p only).
std::string check_mode_for_ranks(const BenchOptions& opt, int p);

// Checks the chosen algorithm names against the names accepted for the op (`accepted`, e.g.
// papcoll_algorithms() plus "native" and "auto") and replaces `--algo all` by all of them.
// Returns "" or an error message.
std::string validate_algorithms(BenchOptions& opt, const std::vector<std::string>& accepted);

// "oracle,monitor" for the list.
std::string pats_label(const std::vector<PatMode>& pats);
bool uses_monitor_thread(const BenchOptions& opt);  // --pat monitor or --oracle-with-monitor

// "1M" for 1048576, "128K", "3G", else the plain number.
std::string format_count(long long n);

// Splits "a,b,c" (no trimming; empty items are kept so the caller can reject them).
std::vector<std::string> split_commas(const std::string& s);

}  // namespace papcoll_bench
