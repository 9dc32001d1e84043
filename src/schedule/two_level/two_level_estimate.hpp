// The estimates of the two-level rows (two_level.hpp), composed from their phases as the
// schedules are: the reduces inside the nodes tree by tree, the leaders' phase by its row's own
// estimate on the nodes' ready times, the broadcasts inside the nodes.
#pragma once

#include <vector>

#include "schedule/two_level/two_level.hpp"

namespace papcoll {

// The reduces inside the nodes (the others' binomial tree to the collector, then the hop to the
// leader), from the arrivals: per node when its leader holds the node's sum, per rank when it has
// handed its part on (a leader: its arrival).
struct NodeSums {
  std::vector<double> ready, sent;
};
NodeSums node_sums(const GeneratorInput& in, const TwoLevelPlan& plan);
std::vector<double> node_sums_ready(const GeneratorInput& in, const TwoLevelPlan& plan);

// Each leader's finish when the leaders run `row` on `leaders` with the nodes' ready times as
// arrivals, and when it holds its result (`has`: a leader that goes on handing the result on
// among the leaders has it before its finish, and its node's broadcast starts from there): the
// row's own per-rank estimate (estimate::FinishTimes).
struct LeadersDone {
  std::vector<double> finish, has;
};
LeadersDone leaders_finish(const TwoLevelPlan& plan, const std::vector<double>& ready,
                           const AlgorithmInfo& row, const GeneratorInput& leaders);

// The mean elapsed time when every leader, once its part among the leaders is done, broadcasts
// the result inside its node by a binomial tree of whole vectors.
double spread_to_nodes_estimate(const GeneratorInput& in, const TwoLevelPlan& plan,
                                const std::vector<double>& ready, const AlgorithmInfo& row,
                                const GeneratorInput& leaders);

}  // namespace papcoll
