#include "schedule/estimate_topology.hpp"

#include <algorithm>
#include <deque>
#include <limits>

namespace papcoll::estimate {

NodeLinks::NodeLinks(const GeneratorInput& in)
    : p_(in.p),
      nodes_(in.p),
      alpha_(in.cost.alpha),
      beta_(in.cost.beta),
      intra_alpha_(in.cost.intra_alpha > 0 ? in.cost.intra_alpha : in.cost.alpha),
      intra_beta_(in.cost.intra_beta > 0 ? in.cost.intra_beta : in.cost.beta) {
  // A layout for another p (a caller's mistake) is ignored rather than read out of bounds.
  if (in.nodes != nullptr && in.nodes->p() == in.p && !in.nodes->one_rank_per_node()) {
    node_of_ = &in.nodes->node_of;
    nodes_ = in.nodes->nodes();
  }
}

double NodeLinks::message(int from, int to, double bytes, double share) const {
  if (same_node(from, to)) return intra_alpha_ + intra_beta_ * bytes;
  return alpha_ + beta_ * bytes * std::max(1.0, share);
}

LockstepStep::LockstepStep(const NodeLinks& links)
    : links_(links),
      out_(static_cast<size_t>(links.nodes()), 0.0),
      in_(static_cast<size_t>(links.nodes()), 0.0) {}

void LockstepStep::clear() {
  for (int n : touched_) out_[static_cast<size_t>(n)] = in_[static_cast<size_t>(n)] = 0;
  touched_.clear();
  transfers_.clear();
}

void LockstepStep::add(int from, int to, double bytes) {
  transfers_.push_back({from, to, bytes});
  if (links_.same_node(from, to)) return;
  const int a = links_.node(from), b = links_.node(to);
  out_[static_cast<size_t>(a)] += bytes;
  in_[static_cast<size_t>(b)] += bytes;
  touched_.push_back(a);
  touched_.push_back(b);
}

double LockstepStep::transfer_time(int from, int to, double bytes) const {
  if (links_.same_node(from, to)) return links_.intra_alpha() + links_.intra_beta() * bytes;
  const double busier = std::max({bytes, out_[static_cast<size_t>(links_.node(from))],
                                  in_[static_cast<size_t>(links_.node(to))]});
  return links_.alpha() + links_.beta() * busier;
}

double LockstepStep::time() const {
  double t = 0;
  for (const Transfer& x : transfers_) t = std::max(t, transfer_time(x.from, x.to, x.bytes));
  return t;
}

double lockstep_step_time(const GeneratorInput& in, const std::vector<int>& to,
                          const std::vector<double>& bytes) {
  const NodeLinks links(in);
  LockstepStep step(links);
  for (int r = 0; r < in.p && r < static_cast<int>(to.size()); ++r)
    if (to[static_cast<size_t>(r)] >= 0)
      step.add(r, to[static_cast<size_t>(r)], bytes[static_cast<size_t>(r)]);
  return step.time();
}

std::vector<double> butterfly_durations(const GeneratorInput& in, const std::vector<int>& real,
                                        const std::vector<ButterflyStep>& steps) {
  const int n = static_cast<int>(real.size());
  const NodeLinks links(in);
  LockstepStep step(links);
  std::vector<double> durations(steps.size() * static_cast<size_t>(n), 0.0);
  for (size_t k = 0; k < steps.size(); ++k) {
    const ButterflyStep& s = steps[k];
    step.clear();
    if (!links.one_rank_per_node())
      for (int v = 0; v < n; ++v)
        if ((v ^ s.mask) < n)
          step.add(real[static_cast<size_t>(v)], real[static_cast<size_t>(v ^ s.mask)], s.bytes);
    for (int v = 0; v < n; ++v) {
      const int w = v ^ s.mask;
      if (w >= n) continue;
      const int a = real[static_cast<size_t>(v)], b = real[static_cast<size_t>(w)];
      durations[k * static_cast<size_t>(n) + static_cast<size_t>(v)] =
          links.one_rank_per_node()
              ? links.message(a, b, s.bytes)
              : std::max(step.transfer_time(a, b, s.bytes), step.transfer_time(b, a, s.bytes));
    }
  }
  return durations;
}

std::vector<double> butterfly_finish(const std::vector<double>& durations,
                                     const std::vector<ButterflyStep>& steps, double gamma,
                                     std::vector<double> ready) {
  const int n = static_cast<int>(ready.size());
  std::vector<double> next(ready.size());
  for (size_t k = 0; k < steps.size(); ++k) {
    const ButterflyStep& s = steps[k];
    for (int v = 0; v < n; ++v) {
      const int w = v ^ s.mask;
      if (w >= n) {
        next[static_cast<size_t>(v)] = ready[static_cast<size_t>(v)];
        continue;
      }
      next[static_cast<size_t>(v)] =
          std::max(ready[static_cast<size_t>(v)], ready[static_cast<size_t>(w)]) +
          durations[k * static_cast<size_t>(n) + static_cast<size_t>(v)] + gamma * s.reduced;
    }
    ready.swap(next);
  }
  return ready;
}

std::vector<double> ring_hop_times(const GeneratorInput& in, const std::vector<int>& order,
                                   double bytes) {
  const NodeLinks links(in);
  const int p = static_cast<int>(order.size());
  std::vector<double> hop(static_cast<size_t>(p), 0.0);
  if (p < 2) return hop;
  auto next = [&](int x) { return order[static_cast<size_t>(x + 1 < p ? x + 1 : 0)]; };
  std::vector<int> out(static_cast<size_t>(links.nodes()), 0), into(out.size(), 0);
  for (int x = 0; x < p; ++x) {
    const int a = order[static_cast<size_t>(x)], b = next(x);
    if (a == b || links.same_node(a, b)) continue;
    ++out[static_cast<size_t>(links.node(a))];
    ++into[static_cast<size_t>(links.node(b))];
  }
  for (int x = 0; x < p; ++x) {
    const int a = order[static_cast<size_t>(x)], b = next(x);
    const double share =
        std::max(out[static_cast<size_t>(links.node(a))], into[static_cast<size_t>(links.node(b))]);
    hop[static_cast<size_t>(x)] = links.message(a, b, bytes, share);
  }
  return hop;
}

std::vector<double> ring_receive_finish(const std::vector<double>& hop,
                                        const std::vector<double>& ready, int steps) {
  const int p = static_cast<int>(hop.size());
  if (p < 2 || steps <= 0) return ready;
  const int n = steps;
  // Linear indices i in [0, 2p) stand for position i mod p; a chain ending at x is read at
  // X = x + p and starts at some i in [X - min(n, p) + 1, X] (it never wraps onto itself).
  auto cin = [&](int i) {  // the hop into position i: from i - 1
    const int x = i % p;
    return hop[static_cast<size_t>(x > 0 ? x - 1 : p - 1)];
  };
  auto entry = [&](int i) {  // a chain's first step at i needs i and i - 1 there
    const int x = i % p;
    return std::max(ready[static_cast<size_t>(x)],
                    ready[static_cast<size_t>(x > 0 ? x - 1 : p - 1)]);
  };
  std::vector<double> c(static_cast<size_t>(2 * p) + 1, 0.0);  // c[i]: sum of cin over [0, i)
  for (int i = 0; i < 2 * p; ++i)
    c[static_cast<size_t>(i) + 1] = c[static_cast<size_t>(i)] + cin(i);
  // The chain spends its spare steps on its slowest hop: for each distinct hop time v, the best
  // start among those whose window holds a hop of time v (then v is at most the window's
  // slowest, so no chain is overstated, and the slowest hop's own v gives the exact value).
  std::vector<double> values(hop);
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  // Many distinct hop times (uneven sharing): every window costed at the slowest hop of all.
  const bool any_window = values.size() > 32;
  if (any_window) values = {values.back()};
  const double kNone = -std::numeric_limits<double>::infinity();
  std::vector<double> finish(static_cast<size_t>(p), kNone);
  std::vector<int> last(static_cast<size_t>(2 * p));
  std::deque<int> window;
  const int span = std::min(n, p);
  for (const double v : values) {
    int seen = -1;
    for (int i = 0; i < 2 * p; ++i) {
      if (any_window || cin(i) == v) seen = i;
      last[static_cast<size_t>(i)] = seen;
    }
    auto key = [&](int i) { return entry(i) - c[static_cast<size_t>(i)] + i * v; };
    window.clear();
    int next = p - span + 1;
    for (int X = p; X < 2 * p; ++X) {
      const int lo = X - span + 1, hi = last[static_cast<size_t>(X)];
      for (; next <= hi; ++next) {
        while (!window.empty() && key(window.back()) <= key(next)) window.pop_back();
        window.push_back(next);
      }
      while (!window.empty() && window.front() < lo) window.pop_front();
      if (window.empty() || hi < lo) continue;
      const double t = key(window.front()) + c[static_cast<size_t>(X) + 1] + (n - 1 - X) * v;
      double& f = finish[static_cast<size_t>(X - p)];
      f = std::max(f, t);
    }
  }
  for (int x = 0; x < p; ++x)
    finish[static_cast<size_t>(x)] =
        std::max(finish[static_cast<size_t>(x)], ready[static_cast<size_t>(x)]);
  return finish;
}

}  // namespace papcoll::estimate
