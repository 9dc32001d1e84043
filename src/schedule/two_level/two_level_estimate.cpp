#include "schedule/two_level/two_level_estimate.hpp"

#include <algorithm>

#include "schedule/bcast/binomial_tree.hpp"
#include "schedule/estimate.hpp"

namespace papcoll {
namespace {

// A binomial reduce of whole vectors over ranks with arrivals `a` (index order, index 0 the
// root), as binomial_reduce_predict runs it: when each index holds its subtree's sum (ready) and
// when its send to its parent ends (finish; the root's is its ready).
struct BinomialTimes {
  std::vector<double> ready, finish;
};
BinomialTimes binomial_reduce_times(const std::vector<double>& a, double message, double reduce) {
  const int m = static_cast<int>(a.size());
  BinomialTimes t{std::vector<double>(static_cast<size_t>(m)),
                  std::vector<double>(static_cast<size_t>(m))};
  for (int v = m - 1; v >= 0; --v) {
    double at = a[v];
    const int low = v == 0 ? 31 : __builtin_ctz(static_cast<unsigned>(v));
    for (int k = 0; k < low && (int64_t{1} << k) < m; ++k) {
      const int64_t child = v + (int64_t{1} << k);
      if (child >= m) break;
      const double start = std::max(at, t.ready[child]);
      t.finish[child] = start + message;
      at = start + message + reduce;
    }
    t.ready[v] = at;
  }
  t.finish[0] = t.ready[0];
  return t;
}

// A binomial broadcast of whole messages over ranks with arrivals `a` (index 0 the root, which
// holds the data at `root_has`): each rank sends to its children largest subtree first through
// its one port, a child taking the message once it has arrived. When each index has the data.
std::vector<double> binomial_bcast_times(const std::vector<double>& a, double root_has,
                                         double message) {
  const int m = static_cast<int>(a.size());
  std::vector<double> has(static_cast<size_t>(m));
  has[0] = root_has;
  for (int v = 0; v < m; ++v) {  // parents before children: a child's index is larger
    double port = has[v];
    for (const auto& [child, bit] : binomial::children(m, v)) {
      (void)bit;
      const double start = std::max(port, a[child]);
      has[child] = start + message;
      port = has[child];
    }
  }
  return has;
}

}  // namespace

NodeSums node_sums(const GeneratorInput& in, const TwoLevelPlan& plan) {
  const std::vector<double> a = estimate::arrivals_of(in);
  const CostParams c = intra_cost(in.cost);
  const double message = c.alpha + c.beta * in.bytes, reduce = c.gamma * in.bytes;
  NodeSums s;
  s.ready.resize(static_cast<size_t>(plan.nodes));
  s.sent.assign(a.begin(), a.end());
  for (int k = 0; k < plan.nodes; ++k) {
    const int leader = plan.leader[k];
    const std::vector<int>& others = plan.others[k];
    if (others.empty()) {
      s.ready[k] = a[leader];
      continue;
    }
    std::vector<double> oa;
    for (int r : others) oa.push_back(a[r]);
    const BinomialTimes t = binomial_reduce_times(oa, message, reduce);
    for (size_t i = 1; i < others.size(); ++i) s.sent[others[i]] = t.finish[i];
    // The collector's sum goes to the leader once both are there.
    const double start = std::max(a[leader], t.ready[0]);
    s.sent[others[0]] = start + message;
    s.ready[k] = start + message + reduce;
  }
  return s;
}

std::vector<double> node_sums_ready(const GeneratorInput& in, const TwoLevelPlan& plan) {
  return node_sums(in, plan).ready;
}

LeadersDone leaders_finish(const TwoLevelPlan& plan, const std::vector<double>& ready,
                           const AlgorithmInfo& row, const GeneratorInput& leaders) {
  LeadersDone d;
  if (plan.nodes < 2) {
    d.finish = d.has = ready;
    return d;
  }
  GeneratorInput g = leaders;
  g.arrivals = ready;
  estimate::FinishTimes kept;
  const double mean = row.predict(g);
  if (static_cast<int>(kept.finish.size()) == plan.nodes) {
    d.finish = std::move(kept.finish);
    d.has = static_cast<int>(kept.has.size()) == plan.nodes ? std::move(kept.has) : d.finish;
    return d;
  }
  // An estimate that keeps no per-rank times: every leader at the mean.
  d.finish = ready;
  for (double& t : d.finish) t += mean;
  d.has = d.finish;
  return d;
}

double spread_to_nodes_estimate(const GeneratorInput& in, const TwoLevelPlan& plan,
                                const std::vector<double>& ready, const AlgorithmInfo& row,
                                const GeneratorInput& leaders) {
  const std::vector<double> a = estimate::arrivals_of(in);
  const LeadersDone ld = leaders_finish(plan, ready, row, leaders);
  const std::vector<double>& lf = ld.finish;
  // A broadcast's root holds the data from the start: its node's broadcast does not wait for
  // the root's sends among the leaders.
  std::vector<double> has = ld.has;
  if (row.collective == Collective::bcast && leaders.root >= 0 && leaders.root < plan.nodes)
    has[leaders.root] = ready[leaders.root];
  const CostParams c = intra_cost(in.cost);
  const double message = c.alpha + c.beta * in.bytes;
  std::vector<double> done(static_cast<size_t>(in.p));
  for (int k = 0; k < plan.nodes; ++k) {
    // The binomial broadcast from the leader (index 0) to the others in order.
    const std::vector<int>& others = plan.others[k];
    std::vector<double> ma{a[plan.leader[k]]};
    for (int r : others) ma.push_back(a[r]);
    const std::vector<double> got =
        binomial_bcast_times(ma, std::max(has[k], a[plan.leader[k]]), message);
    double leader_sent = got[0];
    for (size_t i = 0; i < others.size(); ++i) {
      done[others[i]] = got[i + 1];
      // A rank is done after its own sends too: the last child's message.
      for (const auto& [child, bit] :
           binomial::children(static_cast<int>(ma.size()), static_cast<int>(i) + 1))
        done[others[i]] = std::max(done[others[i]], got[child]);
    }
    for (const auto& [child, bit] : binomial::children(static_cast<int>(ma.size()), 0))
      leader_sent = std::max(leader_sent, got[child]);
    done[plan.leader[k]] = std::max({lf[k], a[plan.leader[k]], leader_sent});
  }
  return estimate::mean_elapsed(done, a);
}

}  // namespace papcoll
