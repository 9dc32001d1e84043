// Scatterv and gatherv tree generators (model-based irregular scatter/gather; docs/algorithms.md,
// "Scatterv and gatherv"). Blocks are the ranks' portions: block i is rank i's, counts[i] *
// elem_bytes bytes (GeneratorInput::counts; equal shares of `bytes` when empty), so a schedule
// always has p blocks whatever in.blocks says. One message carries a whole subtree's portions.
// Every rank is a tree node, a rank with a zero count included: it receives (scatter) or sends
// (gather) one message, which may carry no bytes.
//
// The trees use t(i, j, m) = alpha(i, j) + beta(i, j) * m from in.link_model (null: in.cost's
// alpha and beta for every pair). Gatherv runs the scatterv tree backwards in time, with t taken
// child -> parent. Ties are broken by rank, so the same input gives the same schedule everywhere.
// The schedules ignore arrivals but do depend on counts, elem_bytes, bytes and the link model (or
// cost.alpha/beta): a schedule cache must key on those too.
#pragma once

#include "schedule/registry.hpp"
#include "schedule/scatter_gather/sg_problem.hpp"
#include "schedule/scatter_gather/sg_tree.hpp"

namespace papcoll {

enum class SgTreeKind {
  linear,
  binomial,
  binomial_minfirst,
  binomial_maxfirst,
  traff,
  traff_model
};

inline constexpr SgTreeKind kSgTreeKinds[] = {SgTreeKind::linear,
                                              SgTreeKind::binomial,
                                              SgTreeKind::binomial_minfirst,
                                              SgTreeKind::binomial_maxfirst,
                                              SgTreeKind::traff,
                                              SgTreeKind::traff_model};

// The registry name: linear, binomial, binomial-minfirst, binomial-maxfirst, traff, traff-model.
const char* sg_tree_name(SgTreeKind k);

// Flat tree: the root sends every rank its portion, in rank order from the root (sg_linear.cpp).
SgTree linear_sg_tree(const SgProblem& problem);
// Binomial tree shape; `rank order` maps virtual rank v to (v + root) mod p, the model-based
// mappings fill the nodes depth first (sg_binomial.cpp).
enum class BinomialMapping { rank_order, min_first, max_first };
SgTree binomial_sg_tree(const SgProblem& problem, BinomialMapping mapping);
// Träff's irregular tree from the portion sizes alone (sg_traff.cpp).
SgTree traff_sg_tree(const SgProblem& problem);
// The model-based Träff tree of Dichev, Rychkov and Lastovetsky (sg_traff_model.cpp).
SgTree traff_model_sg_tree(const SgProblem& problem);

SgTree build_sg_tree(SgTreeKind k, const SgProblem& problem);

// The schedule of tree k for collective c (scatterv or gatherv). Throws std::invalid_argument on
// bad input (SgProblem).
Schedule sg_schedule(Collective c, SgTreeKind k, const GeneratorInput& in);

// The registry's generator of tree K for collective C.
template <Collective C, SgTreeKind K>
void sg_generator(const GeneratorInput& in, ScheduleSink& out) {
  const SgProblem problem(C, in);
  emit_tree_schedule(build_sg_tree(K, problem), problem, out);
}

// `auto` for scatterv/gatherv (sg_auto.cpp): the tree with the smallest predicted time under the
// link model, ties to the earlier kind in kSgTreeKinds. Not a registry row, because the API gives
// the names `auto` and `native` their own meaning (src/select/selection.cpp).
struct SgChoice {
  SgTreeKind kind = SgTreeKind::binomial;
  const AlgorithmInfo* algorithm = nullptr;  // the registry row of `kind` for the collective
  double predicted = 0;                      // seconds, predicted_tree_time of that tree
};
SgChoice choose_sg_tree(Collective c, const GeneratorInput& in);

}  // namespace papcoll
