#include "schedule/two_level/two_level_estimate.hpp"

#include <algorithm>

#include "schedule/estimate.hpp"

namespace papcoll {
namespace {

int depth_of(int m) {
  int q = 0;
  while ((1LL << q) < m) ++q;
  return q;
}

// When the root (index 0) of a binomial reduce of whole vectors over ranks with arrivals `a`
// (index order) holds the sum: the tree bottom-up, as binomial_reduce_predict.
double binomial_root_ready(const std::vector<double>& a, double message, double reduce) {
  const int m = static_cast<int>(a.size());
  std::vector<double> ready(static_cast<size_t>(m));
  for (int v = m - 1; v >= 0; --v) {
    double t = a[v];
    const int low = v == 0 ? 31 : __builtin_ctz(static_cast<unsigned>(v));
    for (int k = 0; k < low && (int64_t{1} << k) < m; ++k) {
      const int64_t child = v + (int64_t{1} << k);
      if (child >= m) break;
      t = std::max(t, ready[child]) + message + reduce;
    }
    ready[v] = t;
  }
  return ready[0];
}

}  // namespace

std::vector<double> node_sums_ready(const GeneratorInput& in, const TwoLevelPlan& plan) {
  const std::vector<double> a = estimate::arrivals_of(in);
  const CostParams c = intra_cost(in.cost);
  const double message = c.alpha + c.beta * in.bytes, reduce = c.gamma * in.bytes;
  std::vector<double> ready(static_cast<size_t>(plan.nodes));
  for (int k = 0; k < plan.nodes; ++k) {
    const int leader = plan.leader[k];
    const std::vector<int>& others = plan.others[k];
    if (others.empty()) {
      ready[k] = a[leader];
      continue;
    }
    std::vector<double> oa;
    for (int r : others) oa.push_back(a[r]);
    const double collector = binomial_root_ready(oa, message, reduce);
    ready[k] = std::max(a[leader], collector + message) + reduce;
  }
  return ready;
}

double leaders_total(const TwoLevelPlan& plan, const std::vector<double>& ready,
                     const AlgorithmInfo& row, const GeneratorInput& leaders) {
  if (plan.nodes < 2) return 0;
  GeneratorInput g = leaders;
  g.arrivals = ready;
  return plan.nodes * row.predict(g);
}

double spread_to_nodes_estimate(const GeneratorInput& in, const TwoLevelPlan& plan,
                                const std::vector<double>& ready, const AlgorithmInfo& row,
                                const GeneratorInput& leaders) {
  const std::vector<double> a = estimate::arrivals_of(in);
  // The leaders' own part is exactly their row's estimate (its mean elapsed from their ready
  // times); the other ranks wait for their leader, taken to finish at the leaders' mean finish.
  const double among = leaders_total(plan, ready, row, leaders);
  double total = among, mean_ready = 0;
  for (int k = 0; k < plan.nodes; ++k) {
    total += ready[k] - a[plan.leader[k]];
    mean_ready += ready[k];
  }
  const double leaders_finish = (mean_ready + among) / plan.nodes;
  const CostParams c = intra_cost(in.cost);
  const double message = c.alpha + c.beta * in.bytes;
  for (int k = 0; k < plan.nodes; ++k) {
    const double spread = depth_of(static_cast<int>(plan.ranks[k].size())) * message;
    for (int r : plan.others[k]) total += std::max(leaders_finish, a[r]) + spread - a[r];
  }
  return total / in.p;
}

}  // namespace papcoll
