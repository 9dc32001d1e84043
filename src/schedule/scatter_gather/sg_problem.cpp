#include "schedule/scatter_gather/sg_problem.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "schedule/portions.hpp"

namespace papcoll {

SgProblem::SgProblem(Collective c, const GeneratorInput& in)
    : p_(in.p), gather_(c == Collective::gatherv), model_(in.link_model) {
  if (c != Collective::scatterv && c != Collective::gatherv)
    throw std::invalid_argument("scatter/gather trees are for scatterv and gatherv only");
  if (p_ < 1) throw std::invalid_argument("p must be at least 1");
  root_ = in.root < 0 ? 0 : in.root;
  if (root_ >= p_)
    throw std::invalid_argument("root " + std::to_string(in.root) +
                                " out of range for p=" + std::to_string(p_));
  if (!in.counts.empty() && static_cast<int>(in.counts.size()) != p_)
    throw std::invalid_argument(std::to_string(in.counts.size()) +
                                " counts for p=" + std::to_string(p_) + " (one per rank)");
  for (size_t i = 0; i < in.counts.size(); ++i)
    if (in.counts[i] < 0)
      throw std::invalid_argument("count of rank " + std::to_string(i) + " is negative");
  if (!std::isfinite(in.elem_bytes) || in.elem_bytes < 0)
    throw std::invalid_argument("elem_bytes must be finite and not negative");
  if (model_ && model_->p() != p_)
    throw std::invalid_argument("the link model is for p=" + std::to_string(model_->p()) +
                                ", the schedule for p=" + std::to_string(p_));
  if (!model_) {
    for (const std::string& e :
         {check_link_value(in.cost.alpha, "alpha"), check_link_value(in.cost.beta, "beta")})
      if (!e.empty()) throw std::invalid_argument(e);
    alpha_ = in.cost.alpha;
    beta_ = in.cost.beta;
  }
  bytes_ = portion_bytes(in);
}

}  // namespace papcoll
