#include "calibration/calibration_plan.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "calibration/network_params.hpp"

namespace papcoll {

namespace {

// Each rank's index among the ranks of its node (rank order).
std::vector<int> local_indices(const std::vector<int>& node_of) {
  std::map<int, int> seen;
  std::vector<int> idx(node_of.size());
  for (size_t i = 0; i < node_of.size(); ++i) idx[i] = seen[node_of[i]]++;
  return idx;
}

Pairing pairing_of(const std::vector<std::pair<int, int>>& pairs, int rank) {
  for (const auto& [a, b] : pairs) {
    if (a == rank) return {b, a < b};
    if (b == rank) return {a, b < a};
  }
  return {};
}

}  // namespace

Pairing intra_node_pair(const std::vector<int>& node_of, int rank) {
  if (rank < 0 || rank >= static_cast<int>(node_of.size())) return {};
  const std::vector<int> idx = local_indices(node_of);
  const int mine = idx[rank];
  const int want = mine % 2 == 0 ? mine + 1 : mine - 1;
  for (size_t j = 0; j < node_of.size(); ++j)
    if (node_of[j] == node_of[rank] && idx[j] == want)
      return {static_cast<int>(j), rank < static_cast<int>(j)};
  return {};
}

Pairing inter_node_pair(const std::vector<int>& node_of, int rank) {
  const std::vector<int> idx = local_indices(node_of);
  std::vector<std::tuple<int, int, int>> order;  // (local index, node, rank)
  order.reserve(node_of.size());
  for (size_t i = 0; i < node_of.size(); ++i)
    order.emplace_back(idx[i], node_of[i], static_cast<int>(i));
  std::sort(order.begin(), order.end());
  std::vector<std::pair<int, int>> pairs;
  int pending = -1;
  for (const auto& [li, node, r] : order) {
    if (pending >= 0 && node_of[pending] != node) {
      pairs.emplace_back(pending, r);
      pending = -1;
    } else {
      pending = r;  // the first of a new pair, or replaces one that shares r's node
    }
  }
  return pairing_of(pairs, rank);
}

BudgetSplit split_budget(double total_s, bool intra_phase, bool inter_phase) {
  BudgetSplit s;
  s.gamma_s = total_s * 0.1;
  const int phases = (intra_phase ? 1 : 0) + (inter_phase ? 1 : 0);
  if (phases == 0) return s;
  const double each = (total_s - s.gamma_s) / phases;
  if (intra_phase) s.intra_s = each;
  if (inter_phase) s.inter_s = each;
  return s;
}

PairEstimate estimate_pair(std::vector<double> small_rtt, std::vector<double> large_rtt,
                           double large_bytes) {
  const double small = median_of(small_rtt);
  const double large = median_of(large_rtt);
  PairEstimate e{kUnknown, kUnknown};
  if (std::isfinite(small)) e.alpha = std::max(0.0, small / 2);
  if (std::isfinite(small) && std::isfinite(large) && large_bytes > 0) {
    // On a loaded machine the small messages' noise can exceed the large message's transfer time
    // and make the slope 0 or negative; a beta of 0 would tell every cost that bytes are free (a
    // suite run here measured beta 0 and alpha 2 ms). The large round trip alone bounds beta from
    // above (2 alpha + beta m >= beta m): the cost model then errs on the slow side.
    const double slope = (large - small) / large_bytes;
    e.beta = slope > 0 ? slope : std::max(0.0, large / large_bytes);
  }
  return e;
}

bool grow_large_message(double small_rtt, double large_rtt, double bytes, double max_bytes) {
  return bytes * 4 <= max_bytes && large_rtt - small_rtt < kBetaShare * small_rtt;
}

bool larger_message_fits(double elapsed, double small_rtt, double large_rtt, double budget_s) {
  const double next_step = 2 * small_rtt + 4 * std::max(0.0, large_rtt - small_rtt);
  return elapsed + 2 * next_step <= budget_s;
}

}  // namespace papcoll
