// papcoll-model measure: estimates the per-pair Hockney model t(i, j, m) = alpha(i, j) +
// beta(i, j) m of the ranks of a communicator by ping-pong (docs/papcoll-model.md).
//
// Pairs are measured in the rounds of a round-robin tournament (pair_rounds.hpp), every rank in
// one pair per round, so a sweep over all pairs takes p - 1 (or p) rounds instead of
// p (p - 1) / 2. Per pair {a, b}, size m and direction, `reps` round trips carry m bytes one way
// and 0 bytes back, and their median is one data point: a -> b gives alpha(a, b) + alpha(b, a) +
// beta(a, b) m, b -> a the same with beta(b, a). A least-squares line per direction (hockney_fit)
// gives each direction's beta; the latency sum is split evenly, because a round trip cannot tell
// how it divides without synchronised clocks. Sweeps repeat until every estimate's 95% confidence
// interval is tight or the time budget is spent.
#pragma once

#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "model/link_model.hpp"

namespace papcoll_model {

struct MeasureOptions {
  std::vector<long long> sizes{1, 1024, 16384, 65536, 262144};  // bytes
  int reps = 7;             // round trips per (pair, size, direction) and sweep; the median counts
  double budget_s = 60;     // no sweep starts that would be predicted to end after this
  double target_ci = 0.05;  // stop when every relative 95% CI half-width is at most this
  int min_sweeps = 2;
  int max_sweeps = 100;
};

struct MeasureResult {  // complete at rank 0 only
  std::shared_ptr<const papcoll::LinkModel> model;
  int sweeps = 0;
  double seconds = 0;
  double worst_alpha_ci = 0;  // largest relative CI half-width over the pairs' latency sums
  double worst_beta_ci = 0;   // ... over every direction's beta
  bool converged = false;     // both within target_ci
  int clamped = 0;            // negative estimates written as 0
};

// Collective over comm. Returns "" or an error (the same on every rank).
std::string measure_link_model(MPI_Comm comm, const MeasureOptions& opt, MeasureResult* out);

}  // namespace papcoll_model
