// The scatterv/gatherv registry rows: one tree builder per kind, one schedule for both collectives.
#include <stdexcept>

#include "schedule/scatter_gather/scatter_gather_generators.hpp"

namespace papcoll {

const char* sg_tree_name(SgTreeKind k) {
  switch (k) {
    case SgTreeKind::linear: return "linear";
    case SgTreeKind::binomial: return "binomial";
    case SgTreeKind::binomial_minfirst: return "binomial-minfirst";
    case SgTreeKind::binomial_maxfirst: return "binomial-maxfirst";
    case SgTreeKind::traff: return "traff";
    case SgTreeKind::traff_model: return "traff-model";
  }
  return "?";
}

SgTree build_sg_tree(SgTreeKind k, const SgProblem& problem) {
  switch (k) {
    case SgTreeKind::linear: return linear_sg_tree(problem);
    case SgTreeKind::binomial: return binomial_sg_tree(problem, BinomialMapping::rank_order);
    case SgTreeKind::binomial_minfirst:
      return binomial_sg_tree(problem, BinomialMapping::min_first);
    case SgTreeKind::binomial_maxfirst:
      return binomial_sg_tree(problem, BinomialMapping::max_first);
    case SgTreeKind::traff: return traff_sg_tree(problem);
    case SgTreeKind::traff_model: return traff_model_sg_tree(problem);
  }
  throw std::logic_error("unknown scatter/gather tree");
}

Schedule sg_schedule(Collective c, SgTreeKind k, const GeneratorInput& in) {
  const SgProblem problem(c, in);
  return tree_schedule(build_sg_tree(k, problem), problem, sg_tree_name(k));
}

}  // namespace papcoll
