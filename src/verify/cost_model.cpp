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

// message_bytes(op): the bytes an op carries; link(from, to): {alpha, beta} of that pair.
template <typename MessageBytes, typename Link>
CostResult evaluate(const Schedule& s, const std::vector<double>& arrivals, double gamma,
                    MessageBytes message_bytes, Link link) {
  const int p = s.p;
  std::vector<double> arrival(static_cast<size_t>(p), 0.0);
  if (static_cast<int>(arrivals.size()) == p) arrival = arrivals;

  // Rank state: when its current step started, and when its ports become free.
  std::vector<double> step_start = arrival, send_free = arrival, recv_free = arrival,
                      finish = arrival;
  std::vector<double> last_send = arrival;  // sends are non-blocking: they end a rank, not a step
  std::vector<size_t> next_step(static_cast<size_t>(p), 0);

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
    for (int r : ranks) {
      const Step& st = s.ranks[r].steps[next_step[r]];
      for (const Op& op : s.ranks[r].ops_of(st)) {
        if (op.kind != OpKind::send) continue;
        const int to = op.peer;
        const double start = std::max({step_start[r], send_free[r], step_start[to], recv_free[to]});
        const auto [alpha, beta] = link(r, to);
        const double end = start + alpha + beta * message_bytes(op);
        send_free[r] = end;
        recv_free[to] = end;
        last_send[r] = std::max(last_send[r], end);
        recv_done[{r, to}].push_back(end);
      }
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
        const double arrived =
            it != recv_done.end() && idx < it->second.size() ? it->second[idx] : step_start[r];
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

}  // namespace

CostResult evaluate_cost(const Schedule& s, const std::vector<double>& arrivals,
                         const CostParams& cost, int64_t bytes) {
  auto message = [&](const Op& op) {
    int64_t m = 0;
    for (const BlockRun& run : op.blocks.runs())
      m += block_range(bytes, s.blocks, run.end() - 1).offset +
           block_range(bytes, s.blocks, run.end() - 1).count -
           block_range(bytes, s.blocks, run.first).offset;
    return static_cast<double>(m);
  };
  auto link = [&](int, int) { return std::pair<double, double>{cost.alpha, cost.beta}; };
  return evaluate(s, arrivals, cost.gamma, message, link);
}

CostResult evaluate_cost(const Schedule& s, const std::vector<double>& arrivals,
                         const CostParams& cost, const std::vector<double>& block_bytes,
                         const LinkModel* links) {
  if (static_cast<int>(block_bytes.size()) != s.blocks)
    throw std::invalid_argument("evaluate_cost: " + std::to_string(block_bytes.size()) +
                                " block sizes for " + std::to_string(s.blocks) + " blocks");
  if (links != nullptr && links->p() != s.p)
    throw std::invalid_argument("evaluate_cost: the link model is for p=" +
                                std::to_string(links->p()) + ", the schedule for p=" +
                                std::to_string(s.p));
  auto message = [&](const Op& op) { return message_bytes(block_bytes, op.blocks); };
  auto link = [&](int from, int to) {
    return links != nullptr ? std::pair<double, double>{links->alpha(from, to), links->beta(from, to)}
                            : std::pair<double, double>{cost.alpha, cost.beta};
  };
  return evaluate(s, arrivals, cost.gamma, message, link);
}

}  // namespace papcoll
