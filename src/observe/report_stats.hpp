// The straggler report computed from every rank's record (report_data.hpp), at the writing rank,
// after the one gather of report_writer.cpp: per communicator and call key, every rank's lateness
// against the earliest rank of each call (on world rank 0's clock, from the measured offsets),
// the time it lost waiting for the last one, how often it was last, the time in the collective,
// the algorithms and auto's reasons, the prediction error; per communicator the same pooled over
// keys, the ranks ordered by mean lateness, and windows of calls for the heatmap. The JSON is
// docs/report-format.md (format version kReportVersion). No MPI here (unit-tested).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "observe/report_data.hpp"

namespace papcoll::observe {

inline constexpr int kReportVersion = 1;

// Bins of the per-call waiting time: [0, 1 us), then 4 per decade up to 100 s, then >= 100 s.
inline constexpr int kWaitBins = 34;
double wait_bin_upper_edge(int bin);  // +inf for the last
int wait_bin(double seconds);

struct Quantiles {
  double mean = NAN, median = NAN, p95 = NAN, max = NAN;
};
// Weighted: each value stands for `weight` calls (2^level of its key's log).
Quantiles weighted_quantiles(std::vector<std::pair<double, double>> value_weight);

struct RankStats {
  int rank = 0, world_rank = -1;
  std::string host;
  Quantiles lateness;        // seconds after the earliest rank of the call
  Quantiles wait;            // seconds until the last rank of the call arrived
  double last_share = NAN;   // share of the calls in which this rank arrived last
  double seconds = 0;        // time in the collective, every call (exact)
  double wait_estimate = 0;  // time lost waiting for later ranks over every call (estimated)
  std::vector<double> wait_histogram;  // calls per wait bin (estimated)
};

struct PredictionStats {
  std::uint64_t calls = 0;      // sampled calls with a prediction on every rank
  double mean_abs_error = NAN;  // mean over ranks and calls of |predicted - measured lateness|
  double max_abs_error = NAN;
  double mean_spread = NAN;  // mean measured spread (last - first arrival), for scale
};

struct KeyStats {
  CallKey key;
  std::uint64_t calls = 0;    // comm rank 0's count
  std::uint64_t matched = 0;  // sampled calls every rank logged (lateness is computed on these)
  int level = 0;              // thinning level: each matched call stands for 2^level calls
  std::vector<std::pair<std::string, std::uint64_t>> algorithms;  // as comm rank 0 ran them
  std::uint64_t reasons[kReasons] = {};                           // comm rank 0's
  std::uint64_t refusals = 0;  // calls refused, summed over ranks
  double mean_gain = NAN;      // auto's predicted gain, where it computed one
  double mean_seconds = NAN;   // time in the collective per call, mean over ranks
  PredictionStats prediction;
  std::vector<RankStats> ranks;
};

struct WindowStats {
  std::uint64_t first_call = 0, last_call = 0;
  double calls = 0;              // calls the window's samples stand for
  std::vector<double> lateness;  // per rank, mean seconds (NaN: no sample)
  std::vector<double> wait;      // per rank, mean seconds
};

struct CommStats {
  long long id = 0;
  std::string name;
  int size = 0;
  int reporting = 0;  // ranks whose record arrived
  bool freed = false;
  std::vector<int> world_ranks;
  std::uint64_t calls = 0, unkeyed = 0;
  double seconds = 0, wait_estimate = 0;  // summed over ranks and calls
  std::vector<KeyStats> keys;
  std::vector<RankStats> ranks;  // pooled over keys
  std::vector<int> stragglers;   // comm ranks by pooled mean lateness, latest first
  std::vector<WindowStats> windows;
  // Every call logged on every rank, in call order, with the comm rank that arrived last: the
  // straggler named per call (per step of a training loop).
  std::vector<std::pair<std::uint64_t, int>> last_by_call;
};

std::vector<CommStats> analyze(const std::vector<RankData>& ranks, int max_windows = 100);

struct ReportMeta {
  std::string created;  // ISO 8601, UTC
  std::string papcoll_version;
  std::string mpi_library;
  int world_size = 0;
  double clock_resolution = 0;  // seconds
  int samples_per_key = 0;      // PAPCOLL_REPORT_SAMPLES
};
std::string report_json(const std::vector<CommStats>& comms, const std::vector<RankData>& ranks,
                        const ReportMeta& meta);

}  // namespace papcoll::observe
