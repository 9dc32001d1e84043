// The model-based Träff tree (Dichev, Rychkov, Lastovetsky, Sect. 2, "Model-based Träff
// algorithm", Fig. 1). For a node j and the processes S still to place below it:
//  1. sort S by decreasing predicted time t(j, i, m_i) of i's own portion (ties by rank);
//  2. cut the sorted list with traff_partition, weights t(j, i, m_i): subsets balanced in their
//     total communication cost with j, few slow processes first, many fast ones last;
//  3. in each subset T, the head is the process that moves all of T's data (M_T = the sum of
//     T's portions) fastest to or from j, argmin t(j, i, M_T); ties to the earlier in T's order,
//     i.e. the larger own time, then the lower rank. The edge (j, head) is made, and steps 1-3
//     repeat for the head and the rest of T: times are predicted anew for every new parent.
// Compared with Träff's tree, the weights include each link's latency and bandwidth, so both the
// mapping and the shape change with the network. A node sends to its children heaviest subset
// first, as in Träff's tree.
#include <algorithm>
#include <deque>
#include <utility>

#include "schedule/portions.hpp"
#include "schedule/scatter_gather/scatter_gather_generators.hpp"
#include "schedule/scatter_gather/sg_partition.hpp"

namespace papcoll {

SgTree traff_model_sg_tree(const SgProblem& problem) {
  const int p = problem.p();
  SgTree t = empty_sg_tree(p, problem.root());
  std::vector<int> all;
  for (int i = 0; i < p; ++i)
    if (i != problem.root()) all.push_back(i);
  std::deque<std::pair<int, std::vector<int>>> work{{problem.root(), std::move(all)}};
  while (!work.empty()) {
    auto [node, below] = std::move(work.front());
    work.pop_front();
    if (below.empty()) continue;
    std::vector<std::pair<double, int>> own;  // (t(node, i, m_i), i)
    for (int i : below) own.push_back({problem.edge_time(node, i, problem.portion(i)), i});
    std::sort(own.begin(), own.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    std::vector<double> weight;
    for (size_t k = 0; k < own.size(); ++k) {
      below[k] = own[k].second;
      weight.push_back(own[k].first);
    }
    std::vector<std::vector<int>> subsets = traff_partition(below, weight);
    std::vector<int> heads;
    for (std::vector<int>& s : subsets) {
      std::vector<int> ranks = s;
      std::sort(ranks.begin(), ranks.end());
      const double m = message_bytes(problem.bytes(), ranks);
      size_t best = 0;
      for (size_t k = 1; k < s.size(); ++k)
        if (problem.edge_time(node, s[k], m) < problem.edge_time(node, s[best], m)) best = k;
      heads.push_back(s[best]);
      s.erase(s.begin() + static_cast<std::ptrdiff_t>(best));
    }
    for (size_t k = subsets.size(); k-- > 0;) {
      add_child(t, node, heads[k]);
      work.push_back({heads[k], std::move(subsets[k])});
    }
  }
  return t;
}

}  // namespace papcoll
