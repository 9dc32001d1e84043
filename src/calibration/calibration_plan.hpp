// The measurement's plan, without MPI (calibration_measure.hpp runs it): who ping-pongs with whom,
// and when to stop. Every input is identical on every rank (the communicator's node layout,
// model/node_layout.hpp, and the budget), so every rank derives the same plan. node_of below is
// NodeLayout::node_of(): equal values share a node, nodes numbered in the order of their lowest
// rank.
#pragma once

#include <cstdint>
#include <vector>

namespace papcoll {

// A rank's partner in one phase of the measurement: -1 when it sits the phase out. The lower
// rank of a pair drives the ping-pong (initiator) and reports its estimates.
struct Pairing {
  int partner = -1;
  bool initiator = false;
};
// Pairs within nodes: a node's ranks in rank order, paired 1st-2nd, 3rd-4th, ...
Pairing intra_node_pair(const std::vector<int>& node_of, int rank);
// Pairs across nodes, as many as possible: ranks sorted by (index within their node, node), and
// neighbours in that order paired when they are on different nodes; so every pair is concurrent
// with the others and no rank is in two.
Pairing inter_node_pair(const std::vector<int>& node_of, int rank);

// When a ping-pong loop stops: never before min_steps (an estimate needs samples), never after
// max_steps, and otherwise only while the next step, predicted to take as long as the slowest
// step so far, still ends within the budget. So a loop ends at most one step past its budget.
class StepBudget {
 public:
  StepBudget(double budget_s, int min_steps, int max_steps)
      : budget_(budget_s), min_(min_steps), max_(max_steps) {}
  // Whether step number steps() may start at `elapsed` seconds after the loop began; records the
  // step's duration with done().
  bool another(double elapsed) const {
    if (steps_ < min_) return true;
    return steps_ < max_ && elapsed + slowest_ <= budget_;
  }
  void done(double step_seconds) {
    ++steps_;
    if (step_seconds > slowest_) slowest_ = step_seconds;
  }
  int steps() const { return steps_; }

 private:
  double budget_;
  int min_, max_;
  int steps_ = 0;
  double slowest_ = 0;
};

// Where the measurement's time goes: gamma (local reductions) first, then the ping-pong phases
// (intra, inter) that the communicator has, sharing what is left equally.
struct BudgetSplit {
  double gamma_s = 0;
  double intra_s = 0;  // 0: no such phase
  double inter_s = 0;
};
BudgetSplit split_budget(double total_s, bool intra_phase, bool inter_phase);

// Ping-pong estimates of one pair from round-trip times: small messages of 0 bytes both ways
// (2 alpha) and large ones of `large_bytes` there and 0 back (2 alpha + beta m). Medians of each;
// alpha = small / 2, beta = (large - small) / m, or large / m (an upper bound) when noise makes
// that slope 0 or negative. NaN without samples.
struct PairEstimate {
  double alpha, beta;
};
PairEstimate estimate_pair(std::vector<double> small_rtt, std::vector<double> large_rtt,
                           double large_bytes);

// The large message's size grows (x4, up to max_bytes) while its extra time over a small round
// trip is below kBetaShare times that round trip: beta would drown in the latency's noise.
inline constexpr double kBetaShare = 4.0;
bool grow_large_message(double small_rtt, double large_rtt, double bytes, double max_bytes);
// Growing drops the samples of the current size, so only while the budget still holds two steps
// of the larger size, each predicted as a small round trip plus the large one's extra time x 4:
// a loop never runs past its share to refill samples. elapsed: since the loop began.
bool larger_message_fits(double elapsed, double small_rtt, double large_rtt, double budget_s);

}  // namespace papcoll
