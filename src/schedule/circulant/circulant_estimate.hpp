// The cost model's finish times (verify/cost_model.hpp) of the circulant broadcast (Träff's
// Algorithm 1) under arrival times, without building the schedule: `auto`'s estimate of the
// circulant and arrival-aware broadcasts (AlgorithmInfo::predict, estimate.hpp).
//
// Why not a formula: with few blocks the circulant broadcast is a tree per block, so a late rank
// stalls only the ranks below it (with one block a few percent of them, with n >= log2 p blocks
// all of them); the round-by-round evaluation gets that right.
#pragma once

#include <span>
#include <vector>

namespace papcoll::circulant {

// Per virtual rank v of a group of g ranks (root 0) arriving at a[v]: when the cost model has it
// finish the n-block broadcast whose messages take `message` seconds each (a rank's steps in round
// order, a transfer starting when both ends have reached it and their ports are free, a rank
// finishing no earlier than its last send). O(g (n + log g)) plus O(g log g) for the ranks'
// schedules when g differs from the last few group sizes seen by this thread.
std::vector<double> bcast_finish_times(int g, int n, std::span<const double> a, double message);

}  // namespace papcoll::circulant
