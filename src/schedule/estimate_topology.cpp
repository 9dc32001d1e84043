#include "schedule/estimate_topology.hpp"

#include <algorithm>

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

std::vector<double> butterfly_finish(const GeneratorInput& in, const std::vector<int>& real,
                                     const std::vector<ButterflyStep>& steps,
                                     std::vector<double> ready) {
  const int n = static_cast<int>(real.size());
  const NodeLinks links(in);
  LockstepStep step(links);
  std::vector<double> next(ready.size());
  for (const ButterflyStep& k : steps) {
    step.clear();
    if (!links.one_rank_per_node())
      for (int v = 0; v < n; ++v)
        if ((v ^ k.mask) < n)
          step.add(real[static_cast<size_t>(v)], real[static_cast<size_t>(v ^ k.mask)], k.bytes);
    for (int v = 0; v < n; ++v) {
      const int w = v ^ k.mask;
      if (w >= n) {
        next[static_cast<size_t>(v)] = ready[static_cast<size_t>(v)];
        continue;
      }
      const int a = real[static_cast<size_t>(v)], b = real[static_cast<size_t>(w)];
      const double d = links.one_rank_per_node() ? links.message(a, b, k.bytes)
                                                 : std::max(step.transfer_time(a, b, k.bytes),
                                                            step.transfer_time(b, a, k.bytes));
      next[static_cast<size_t>(v)] =
          std::max(ready[static_cast<size_t>(v)], ready[static_cast<size_t>(w)]) + d +
          in.cost.gamma * k.reduced;
    }
    ready.swap(next);
  }
  return ready;
}

}  // namespace papcoll::estimate
