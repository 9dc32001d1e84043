// `auto` for scatterv/gatherv: the paper's point is that the best tree depends on the platform
// (Dichev, Rychkov, Lastovetsky, Sect. 3: maximum-first won on a single switch, minimum-first and
// the model-based Träff tree on a cluster of clusters), so every tree is built and the one with
// the smallest predicted time under the link model is taken. predicted_tree_time is the cost
// model's time of the tree's schedule, so `auto` is never predicted slower than any baseline.
#include "schedule/scatter_gather/scatter_gather_generators.hpp"

namespace papcoll {

SgChoice choose_sg_tree(Collective c, const GeneratorInput& in) {
  const SgProblem problem(c, in);
  SgChoice best;
  bool first = true;
  for (SgTreeKind k : kSgTreeKinds) {
    const double t = predicted_tree_time(build_sg_tree(k, problem), problem);
    if (first || t < best.predicted) {
      best.kind = k;
      best.predicted = t;
      first = false;
    }
  }
  best.algorithm = find_algorithm(c, sg_tree_name(best.kind));
  return best;
}

}  // namespace papcoll
