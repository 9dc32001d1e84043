// What `auto` costs a candidate with (AlgorithmInfo::predict): the cost model's mean elapsed time
// (own arrival to own finish, averaged over ranks; verify/cost_model.hpp) for a GeneratorInput,
// computed in O(p) from the algorithm's structure instead of from its whole schedule (which is
// O(p^2) for the ring family). Every estimator follows the cost model's rules: a message of m
// bytes takes alpha + beta m from the moment both ends have reached its step, a reducing receive
// adds gamma m, a step ends when its receives are combined (docs/algorithms.md, "auto").
// tests/unit/schedule/estimate_test.cpp compares every estimator with the cost model.
#pragma once

#include <algorithm>
#include <numeric>
#include <vector>

#include "schedule/registry.hpp"

namespace papcoll::estimate {

// Arrivals of `in` (zeros when none are given).
inline std::vector<double> arrivals_of(const GeneratorInput& in) {
  if (static_cast<int>(in.arrivals.size()) == in.p) return in.arrivals;
  return std::vector<double>(static_cast<size_t>(in.p), 0.0);
}

// Where an estimate's per-rank finish times go while a FinishTimes is in scope on this thread:
// an estimate composed of phases (the two-level rows run another row among the nodes' leaders)
// needs each leader's finish, not only the mean the predict returns. Every estimator ends in
// mean_elapsed or all_finish_after_last (or keeps its finishes itself), which store them.
class FinishTimes;
inline thread_local FinishTimes* t_finish_times = nullptr;
class FinishTimes {
 public:
  FinishTimes() : saved_(t_finish_times) { t_finish_times = this; }
  ~FinishTimes() { t_finish_times = saved_; }
  FinishTimes(const FinishTimes&) = delete;
  FinishTimes& operator=(const FinishTimes&) = delete;
  std::vector<double> finish;  // the last estimate's, one per rank (empty: none was kept)
  // When each rank holds its whole result, where that is before its finish (a rank that goes on
  // sending it: late-fold's servers, which hand the chain the result after the broadcast); empty:
  // at its finish. A phase that reads the result (a node's broadcast) starts from it.
  std::vector<double> has;

 private:
  FinishTimes* saved_;
};
inline void keep_finish(const std::vector<double>& finish) {
  if (t_finish_times == nullptr) return;
  t_finish_times->finish = finish;
  t_finish_times->has.clear();
}
// Whether a FinishTimes is in scope: an estimate computes its `has` times only then (a flat
// call's planning path, auto weighing relay-fold at p = 16384, never reads them).
inline bool keeping_finish_times() { return t_finish_times != nullptr; }
// After keep_finish (mean_elapsed) of the same estimate.
inline void keep_has(const std::vector<double>& has) {
  if (t_finish_times != nullptr) t_finish_times->has = has;
}

// Mean over ranks of finish - arrival.
inline double mean_elapsed(const std::vector<double>& finish, const std::vector<double>& a) {
  keep_finish(finish);
  double sum = 0;
  for (size_t r = 0; r < finish.size(); ++r) sum += finish[r] - a[r];
  return finish.empty() ? 0 : sum / static_cast<double>(finish.size());
}

// An algorithm in which every rank's result depends on every rank's data through paths that all
// cost `t` after the arrival of the rank whose data starts them: every rank finishes at
// max(arrivals) + t (the ring's reduce-scatter and all-gather after p - 1 steps; the butterfly
// after log2 p).
inline double all_finish_after_last(const GeneratorInput& in, double t) {
  const std::vector<double> a = arrivals_of(in);
  const double last = *std::max_element(a.begin(), a.end());
  if (t_finish_times != nullptr) keep_finish(std::vector<double>(a.size(), last + t));
  return last + t - std::accumulate(a.begin(), a.end(), 0.0) / in.p;
}

// Bytes of `count` of the B blocks of the whole buffer (the cost model's even split).
inline double blocks_bytes(const GeneratorInput& in, double count) {
  return in.blocks > 0 ? in.bytes * count / in.blocks : in.bytes;
}

}  // namespace papcoll::estimate

namespace papcoll::estimate {

// The power-of-two fold of recursive doubling and Rabenseifner (power_of_two_fold.hpp): rank 2i+1
// (i < extra) first takes the vector of 2i (pre: alpha + (beta + gamma) m), the p' remaining ranks
// then run a butterfly in which every rank depends on every other through steps costing `mid` in
// all, and 2i+1 finally hands the result to 2i (post: alpha + beta m).
inline double folded_butterfly(const GeneratorInput& in, int extra, double mid) {
  const std::vector<double> a = arrivals_of(in);
  const CostParams& c = in.cost;
  const double m = in.bytes;
  const double pre = c.alpha + (c.beta + c.gamma) * m, post = c.alpha + c.beta * m;
  double start = 0;  // when the last virtual rank is ready for the butterfly
  bool first = true;
  for (int r = 0; r < in.p; ++r) {
    if (r < 2 * extra && r % 2 == 0) continue;
    const double ready = r < 2 * extra ? std::max(a[r], a[r - 1]) + pre : a[r];
    start = first ? ready : std::max(start, ready);
    first = false;
  }
  std::vector<double> finish(static_cast<size_t>(in.p), start + mid);
  for (int i = 0; i < extra; ++i) finish[2 * i] = finish[2 * i + 1] = start + mid + post;
  return mean_elapsed(finish, a);
}

}  // namespace papcoll::estimate
