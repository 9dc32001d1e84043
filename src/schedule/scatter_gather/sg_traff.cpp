// Träff's irregular scatter/gather tree (IPDPS 2004), the baseline that looks at message sizes
// only: the processes below a node are sorted by decreasing portion size (ties by rank) and cut
// into subsets by traff_partition; each subset's first process, the one with the largest portion,
// becomes a child of the node and takes the rest of its subset as its own subtree, recursively.
// A node sends to its children heaviest subset first (the one cut last), so the subtree that needs
// longest to spread its data starts first; gather receives in the opposite order.
#include <algorithm>
#include <deque>
#include <utility>

#include "schedule/scatter_gather/scatter_gather_generators.hpp"
#include "schedule/scatter_gather/sg_partition.hpp"

namespace papcoll {

SgTree traff_sg_tree(const SgProblem& problem) {
  const int p = problem.p();
  SgTree t = empty_sg_tree(p, problem.root());
  std::vector<int> all;
  for (int i = 0; i < p; ++i)
    if (i != problem.root()) all.push_back(i);
  std::stable_sort(all.begin(), all.end(),
                   [&](int a, int b) { return problem.portion(a) > problem.portion(b); });
  // Subsets stay sorted, so the order is kept all the way down.
  std::deque<std::pair<int, std::vector<int>>> work{{problem.root(), std::move(all)}};
  while (!work.empty()) {
    auto [node, below] = std::move(work.front());
    work.pop_front();
    std::vector<double> weight;
    for (int i : below) weight.push_back(problem.portion(i));
    std::vector<std::vector<int>> subsets = traff_partition(below, weight);
    for (auto s = subsets.rbegin(); s != subsets.rend(); ++s) {
      const int head = s->front();
      add_child(t, node, head);
      work.push_back({head, std::vector<int>(s->begin() + 1, s->end())});
    }
  }
  return t;
}

}  // namespace papcoll
