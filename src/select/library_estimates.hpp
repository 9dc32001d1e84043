// Each MPI-library algorithm's finish times under arrivals (library_model.hpp (b)), built from the
// schedule layer's estimates: lockstep steps over the node layout (schedule/estimate_topology.hpp)
// for rings, butterflies and Bruck, the tree estimates (schedule/estimate_tree.hpp) for the
// libraries' trees, and compositions of both for what runs in phases (a reduce then a broadcast,
// a scatter then an all-gather, per node then among node leaders).
#pragma once

#include <vector>

#include "select/library_model.hpp"

namespace papcoll {

// The finish time of every rank when rank r enters at ready[r] and the library runs `a` for
// `call` on `in` (p, bytes, root, cost, nodes; counts for the v-collectives).
std::vector<double> library_algorithm_finish(const LibraryCall& call, const LibraryAlgorithm& a,
                                             const GeneratorInput& in,
                                             const std::vector<double>& ready);

// Messages of at most this many bytes complete for their sender without their receiver (eager
// sends; SMPI's detached sends): Open MPI's TCP and MPICH's default eager limit and SMPI's
// smpi/send-is-detached-thresh are 64 KiB, Open MPI's shared-memory transport's (vader) 4 KiB;
// the generic library has none (the cost model's rule).
double library_eager_bytes(MpiLibrary l, const GeneratorInput& in);

}  // namespace papcoll
