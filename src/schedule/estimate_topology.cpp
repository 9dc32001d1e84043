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
  if (links_.same_node(from, to))
    return links_.intra_alpha() + links_.intra_beta() * bytes;
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
    if (to[static_cast<size_t>(r)] >= 0) step.add(r, to[static_cast<size_t>(r)], bytes[static_cast<size_t>(r)]);
  return step.time();
}

}  // namespace papcoll::estimate
