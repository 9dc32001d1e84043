// The estimates of the two-level rows (two_level.hpp), composed from their phases as the
// schedules are: the reduces inside the nodes tree by tree, the leaders' phase by its row's own
// estimate on the nodes' ready times, the broadcasts inside the nodes.
#pragma once

#include <vector>

#include "schedule/two_level/two_level.hpp"

namespace papcoll {

// Per node, when its leader holds the sum of the node's ranks: the other ranks' binomial reduce
// to the collector over the node's links, from their arrivals, then one whole-vector message to
// the leader (and its reduction), no earlier than the leader's own arrival.
std::vector<double> node_sums_ready(const GeneratorInput& in, const TwoLevelPlan& plan);

// The leaders' summed elapsed time (finish - ready) when they run `row` on `leaders` with the
// nodes' ready times as arrivals: nodes x the row's estimate; 0 for one node.
double leaders_total(const TwoLevelPlan& plan, const std::vector<double>& ready,
                     const AlgorithmInfo& row, const GeneratorInput& leaders);

// The mean elapsed time when the leaders run `row` on `leaders` (their ready times as arrivals)
// and every leader then broadcasts the result inside its node by a binomial tree of whole
// vectors: the leaders are taken to finish at their mean finish time (what row.predict gives).
double spread_to_nodes_estimate(const GeneratorInput& in, const TwoLevelPlan& plan,
                                const std::vector<double>& ready, const AlgorithmInfo& row,
                                const GeneratorInput& leaders);

}  // namespace papcoll
