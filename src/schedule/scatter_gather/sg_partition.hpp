// The partition step shared by Träff's tree and its model-based version: the processes below a
// node, sorted by decreasing weight, are cut into consecutive subsets, each closed as soon as its
// weight exceeds the total weight of the subsets before it (Träff, IPDPS 2004; the strict ">" as
// in CPM/MPIBlib's reading of that paper). So the first subset is the heaviest process alone, and
// every later one outweighs all earlier ones together: few heavy processes on one side, many
// light ones on the other (Dichev, Rychkov, Lastovetsky, Fig. 1b). With equal weights the sizes
// are 1, 2, 4, ... and the remainder: exactly the binomial tree's subtrees, Träff's graceful
// degradation to the regular case.
//
// Totals that are equal (within a relative 1e-12, so that rounding in the sums cannot split a
// tie) are compared by their number of processes, as if every process added an infinitesimal
// weight: zero weights then still give the binomial sizes instead of one long chain.
#pragma once

#include <vector>

namespace papcoll {

// order: the processes, already sorted; weight[k] is the weight of order[k]. Returns the subsets
// in the order they were cut (lightest in total first), each in `order`'s order.
std::vector<std::vector<int>> traff_partition(const std::vector<int>& order,
                                              const std::vector<double>& weight);

}  // namespace papcoll
