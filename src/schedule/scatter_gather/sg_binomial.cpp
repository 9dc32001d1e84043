// Binomial scatterv/gatherv trees. The shape is the binomial tree on virtual ranks 0..p-1
// (binomial_tree.hpp: the children of v are v + 2^i below v's lowest set bit), ceil(log2 p) deep,
// every node sending to its largest subtree first. Only the mapping of ranks to virtual ranks
// differs:
//  - rank order (the baseline): virtual rank v is rank (v + root) mod p;
//  - minimum-first / maximum-first (Dichev, Rychkov, Lastovetsky, Sect. 2, "Model-based binomial
//    tree"): the tree is filled depth first starting with the lowest-order subtrees, which on
//    virtual ranks is simply v = 1, 2, ..., p-1 (v's parent v - lowbit(v) comes first); each new
//    node takes, among the ranks not yet placed, the one with the smallest (largest) predicted
//    t(parent, i, m_i), m_i being rank i's own portion; ties to the lower rank.
#include "schedule/bcast/binomial_tree.hpp"
#include "schedule/scatter_gather/scatter_gather_generators.hpp"

namespace papcoll {
namespace {

std::vector<int> model_mapping(const SgProblem& problem, bool max_first) {
  const int p = problem.p();
  std::vector<int> rank_of(static_cast<size_t>(p), -1);
  std::vector<bool> placed(static_cast<size_t>(p), false);
  rank_of[0] = problem.root();
  placed[problem.root()] = true;
  for (int v = 1; v < p; ++v) {
    const int parent = rank_of[v - (v & -v)];
    int best = -1;
    double best_t = 0;
    for (int i = 0; i < p; ++i) {
      if (placed[i]) continue;
      const double t = problem.edge_time(parent, i, problem.portion(i));
      if (best < 0 || (max_first ? t > best_t : t < best_t)) {
        best = i;
        best_t = t;
      }
    }
    rank_of[v] = best;
    placed[best] = true;
  }
  return rank_of;
}

}  // namespace

SgTree binomial_sg_tree(const SgProblem& problem, BinomialMapping mapping) {
  const int p = problem.p();
  std::vector<int> rank_of(static_cast<size_t>(p));
  if (mapping == BinomialMapping::rank_order) {
    for (int v = 0; v < p; ++v) rank_of[v] = (v + problem.root()) % p;
  } else {
    rank_of = model_mapping(problem, mapping == BinomialMapping::max_first);
  }
  SgTree t = empty_sg_tree(p, problem.root());
  for (int v = 0; v < p; ++v)
    for (const auto& [child, order] : binomial::children(p, v))  // largest subtree first
      add_child(t, rank_of[v], rank_of[child]);
  return t;
}

}  // namespace papcoll
