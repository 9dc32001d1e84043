#include "verify/cost_model.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include "schedule/blocks.hpp"
#include "schedule/portions.hpp"

namespace papcoll {

namespace {

// The busy intervals of one link (a node's link out or in), sorted and disjoint. A message between
// nodes takes its beta m on both its links in their earliest common gap from the time both ends
// are ready: messages share a link one after another, in whatever order fits, as flows sharing
// its bandwidth would finish in about that time; their latencies overlap.
class LinkTimeline {
 public:
  // The first gap of `length` at or after t that is free here; busy intervals ending at or before
  // t are no obstacle.
  double fit(double t, double length) const {
    auto it =
        std::upper_bound(busy_.begin(), busy_.end(), t,
                         [](double x, const std::pair<double, double>& b) { return x < b.second; });
    while (it != busy_.end() && it->first < t + length) {
      t = std::max(t, it->second);
      ++it;
    }
    return t;
  }
  void take(double start, double length) {
    if (!(length > 0)) return;
    const std::pair<double, double> iv{start, start + length};
    auto it = std::lower_bound(busy_.begin(), busy_.end(), iv);
    it = busy_.insert(it, iv);
    // Merge with touching neighbours so lookups stay short.
    if (it + 1 != busy_.end() && (it + 1)->first <= it->second) {
      it->second = std::max(it->second, (it + 1)->second);
      busy_.erase(it + 1);
    }
    if (it != busy_.begin() && (it - 1)->second >= it->first) {
      (it - 1)->second = std::max((it - 1)->second, it->second);
      busy_.erase(it);
    }
  }

 private:
  std::vector<std::pair<double, double>> busy_;
};

// message_bytes(op): the bytes an op carries; link(from, to): {alpha, beta} of that pair;
// node_of: null, or each rank's node, whose links out and in the messages between nodes share.
template <typename MessageBytes, typename Link>
CostResult evaluate(const Schedule& s, const std::vector<double>& arrivals, double gamma,
                    MessageBytes message_bytes, Link link,
                    const std::vector<int>* node_of = nullptr) {
  const int p = s.p;
  std::vector<double> arrival(static_cast<size_t>(p), 0.0);
  if (static_cast<int>(arrivals.size()) == p) arrival = arrivals;

  // Rank state: when its current step started, and when its ports become free.
  // A rank's ports; on nodes of several ranks a second pair for messages inside its node (shared
  // memory copies and the network card work side by side).
  std::vector<double> send_free_intra = arrival, recv_free_intra = arrival;
  std::vector<double> step_start = arrival, send_free = arrival, recv_free = arrival,
                      finish = arrival;
  std::vector<double> last_send = arrival;  // sends are non-blocking: they end a rank, not a step
  std::vector<size_t> next_step(static_cast<size_t>(p), 0);
  // Per node, when its link out (up) and its link in (down) are free.
  const size_t nodes =
      node_of != nullptr
          ? static_cast<size_t>(*std::max_element(node_of->begin(), node_of->end()) + 1)
          : 0;
  std::vector<LinkTimeline> up(nodes), down(nodes);

  std::map<int64_t, std::vector<int>> ranks_in_round;
  for (int r = 0; r < p; ++r)
    for (const Step& st : s.ranks[r].steps) ranks_in_round[st.round].push_back(r);

  using Key = std::tuple<int, int>;  // from, to
  for (const auto& [round, ranks] : ranks_in_round) {
    // Step start = end of the previous step (already in finish[]).
    for (int r : ranks) step_start[r] = finish[r];
    std::vector<double> step_end(static_cast<size_t>(p), 0.0);
    for (int r : ranks) step_end[r] = step_start[r];
    // Receives, in each receiver's op order, are matched with sends in each sender's op order.
    std::map<Key, std::vector<double>> recv_done;  // per (from,to): completion times in order
    // The ranks' sends go out side by side: every rank's first send of the step, then every
    // rank's second, ... (rank by rank, a step of many sends per rank, such as a direct exchange
    // inside a node, would queue each rank's k-th message behind the previous ranks' all).
    std::vector<std::vector<const Op*>> sends_of(ranks.size());
    size_t most = 0;
    for (size_t i = 0; i < ranks.size(); ++i) {
      const int r = ranks[i];
      for (const Op& op : s.ranks[r].ops_of(s.ranks[r].steps[next_step[r]]))
        if (op.kind == OpKind::send) sends_of[i].push_back(&op);
      most = std::max(most, sends_of[i].size());
    }
    for (size_t k = 0; k < most; ++k)
      for (size_t i = 0; i < ranks.size(); ++i) {
        if (k >= sends_of[i].size()) continue;
        const int r = ranks[i];
        const Op& op = *sends_of[i][k];
        const int to = op.peer;
        const auto [alpha, beta] = link(r, to);
        const double m = message_bytes(op);
        const bool inside = node_of != nullptr && (*node_of)[r] == (*node_of)[to];
        const bool across = node_of != nullptr && !inside;
        double& out_port = inside ? send_free_intra[r] : send_free[r];
        double& in_port = inside ? recv_free_intra[to] : recv_free[to];
        double start = std::max({step_start[r], out_port, step_start[to], in_port});
        if (across) {
          LinkTimeline& out = up[static_cast<size_t>((*node_of)[r])];
          LinkTimeline& in = down[static_cast<size_t>((*node_of)[to])];
          const double length = beta * m;
          for (double t = -1; t != start;) {  // the earliest gap free on both links
            t = start;
            start = in.fit(out.fit(start, length), length);
          }
          out.take(start, length);
          in.take(start, length);
        }
        const double end = start + alpha + beta * m;
        out_port = end;
        in_port = end;
        last_send[r] = std::max(last_send[r], end);
        recv_done[{r, to}].push_back(end);
      }
    std::map<Key, size_t> used;
    for (int r : ranks) {
      const Step& st = s.ranks[r].steps[next_step[r]];
      double cpu = step_start[r];
      for (const Op& op : s.ranks[r].ops_of(st)) {
        if (op.kind != OpKind::recv) continue;
        const Key key{op.peer, r};
        auto it = recv_done.find(key);
        const size_t idx = used[key]++;
        const double arrived = it != recv_done.end() && idx < it->second.size() ? it->second[idx]
                                                                                : step_start[r];
        double end = arrived;
        if (op.combine == Combine::reduce) {
          cpu = std::max(cpu, arrived) + gamma * message_bytes(op);
          end = cpu;
        }
        step_end[r] = std::max(step_end[r], end);
      }
    }
    for (int r : ranks) {
      finish[r] = step_end[r];
      ++next_step[r];
    }
  }

  CostResult res;
  double sum = 0;
  for (int r = 0; r < p; ++r) {
    const double f = std::max(finish[r], last_send[r]);
    RankCost rc{r, arrival[r], f, f - arrival[r]};
    sum += rc.elapsed;
    res.max_finish = std::max(res.max_finish, rc.finish);
    res.ranks.push_back(rc);
  }
  res.mean_elapsed = p > 0 ? sum / p : 0;
  if (p > 0 && res.ranks.empty()) res.max_finish = 0;
  return res;
}

// The bytes of an op's blocks when `bytes` are split evenly into `blocks` (blocks.hpp).
double even_split_bytes(int64_t bytes, int blocks, const Op& op) {
  int64_t m = 0;
  for (const BlockRun& run : op.blocks.runs())
    m += block_range(bytes, blocks, run.end() - 1).offset +
         block_range(bytes, blocks, run.end() - 1).count -
         block_range(bytes, blocks, run.first).offset;
  return static_cast<double>(m);
}

}  // namespace

CostResult evaluate_cost(const Schedule& s, const std::vector<double>& arrivals,
                         const CostParams& cost, int64_t bytes) {
  auto message = [&](const Op& op) { return even_split_bytes(bytes, s.blocks, op); };
  auto link = [&](int, int) { return std::pair<double, double>{cost.alpha, cost.beta}; };
  return evaluate(s, arrivals, cost.gamma, message, link);
}

CostResult evaluate_cost(const Schedule& s, const std::vector<double>& arrivals,
                         const CostParams& cost, int64_t bytes, const NodeLayout* nodes) {
  if (nodes == nullptr || nodes->one_rank_per_node())
    return evaluate_cost(s, arrivals, cost, bytes);
  if (nodes->p() != s.p)
    throw std::invalid_argument(
        "evaluate_cost: the node layout is for p=" + std::to_string(nodes->p()) +
        ", the schedule for p=" + std::to_string(s.p));
  auto message = [&](const Op& op) { return even_split_bytes(bytes, s.blocks, op); };
  const double intra_alpha = cost.intra_alpha > 0 ? cost.intra_alpha : cost.alpha;
  const double intra_beta = cost.intra_beta > 0 ? cost.intra_beta : cost.beta;
  auto link = [&](int from, int to) {
    return nodes->node_of[from] == nodes->node_of[to]
               ? std::pair<double, double>{intra_alpha, intra_beta}
               : std::pair<double, double>{cost.alpha, cost.beta};
  };
  return evaluate(s, arrivals, cost.gamma, message, link, &nodes->node_of);
}

CostResult evaluate_cost(const Schedule& s, const std::vector<double>& arrivals,
                         const CostParams& cost, const std::vector<double>& block_bytes,
                         const LinkModel* links) {
  if (static_cast<int>(block_bytes.size()) != s.blocks)
    throw std::invalid_argument("evaluate_cost: " + std::to_string(block_bytes.size()) +
                                " block sizes for " + std::to_string(s.blocks) + " blocks");
  if (links != nullptr && links->p() != s.p)
    throw std::invalid_argument(
        "evaluate_cost: the link model is for p=" + std::to_string(links->p()) +
        ", the schedule for p=" + std::to_string(s.p));
  auto message = [&](const Op& op) { return message_bytes(block_bytes, op.blocks); };
  auto link = [&](int from, int to) {
    return links != nullptr
               ? std::pair<double, double>{links->alpha(from, to), links->beta(from, to)}
               : std::pair<double, double>{cost.alpha, cost.beta};
  };
  return evaluate(s, arrivals, cost.gamma, message, link);
}

}  // namespace papcoll
