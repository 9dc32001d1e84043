// What a scatterv/gatherv tree builder sees: p, the root, every rank's portion in bytes and the
// predicted time of a tree edge, t(i, j, m) = alpha(i, j) + beta(i, j) * m (Dichev, Rychkov,
// Lastovetsky, Sect. 2), taken in the direction the data flows: parent -> child for scatter,
// child -> parent for gather. Without a link model every pair has in.cost's alpha and beta.
#pragma once

#include <memory>
#include <vector>

#include "model/link_model.hpp"
#include "schedule/registry.hpp"

namespace papcoll {

class SgProblem {
 public:
  // c is scatterv or gatherv. Throws std::invalid_argument for a root outside [0, p), counts that
  // are not one per rank or negative, a bad elem_bytes, a link model for another p or, without a
  // model, a negative or non-finite cost.alpha or cost.beta.
  SgProblem(Collective c, const GeneratorInput& in);

  int p() const { return p_; }
  int root() const { return root_; }
  bool gather() const { return gather_; }
  const std::vector<double>& bytes() const { return bytes_; }  // rank i's portion
  double portion(int rank) const { return bytes_[static_cast<size_t>(rank)]; }

  // Latency and inverse bandwidth of the edge parent-child in the direction of the data.
  double edge_alpha(int parent, int child) const {
    return gather_ ? alpha(child, parent) : alpha(parent, child);
  }
  double edge_beta(int parent, int child) const {
    return gather_ ? beta(child, parent) : beta(parent, child);
  }
  // Predicted time to move m bytes over the edge: the paper's t(parent, child, m).
  double edge_time(int parent, int child, double m) const {
    return edge_alpha(parent, child) + edge_beta(parent, child) * m;
  }
  // When a transfer of m bytes over the edge that starts at `start` ends, added up exactly as the
  // cost model does (start + alpha + beta * m), so predictions and costs agree bit for bit.
  double edge_end(double start, int parent, int child, double m) const {
    return start + edge_alpha(parent, child) + edge_beta(parent, child) * m;
  }

 private:
  double alpha(int from, int to) const { return model_ ? model_->alpha(from, to) : alpha_; }
  double beta(int from, int to) const { return model_ ? model_->beta(from, to) : beta_; }

  int p_ = 1;
  int root_ = 0;
  bool gather_ = false;
  std::vector<double> bytes_;
  std::shared_ptr<const LinkModel> model_;
  double alpha_ = 0, beta_ = 0;
};

}  // namespace papcoll
