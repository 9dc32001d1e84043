// Flat (linear) scatterv/gatherv, the baseline without a tree: the root exchanges every portion
// with its owner directly, one message at a time, in rank order starting after the root.
#include "schedule/scatter_gather/scatter_gather_generators.hpp"

namespace papcoll {

SgTree linear_sg_tree(const SgProblem& problem) {
  const int p = problem.p();
  SgTree t = empty_sg_tree(p, problem.root());
  for (int k = 1; k < p; ++k) add_child(t, problem.root(), (problem.root() + k) % p);
  return t;
}

}  // namespace papcoll
