// The decision rules of the MPI libraries: which algorithm, with which segment size, each runs for
// a collective, p, message size, datatype and op (docs/algorithms.md, "The MPI library in auto",
// cites each rule's file and version). Read from the sources, not copied: each rule is written
// here as a table of thresholds or a few comparisons.
#pragma once

#include <cstdint>

#include "select/library_model.hpp"

namespace papcoll {

// Open MPI 4.1's coll/tuned fixed decision (ompi/mca/coll/tuned/coll_tuned_decision_fixed.c,
// v4.1.4): the algorithm number it picks for allreduce, reduce, bcast or allgatherv (the numbers
// of that file's comments: allreduce 1 basic_linear, 2 nonoverlapping, 3 recursive_doubling,
// 4 ring, 5 segmented_ring, 6 rabenseifner; reduce 1 linear, 2 chain, 3 pipeline, 4 binary,
// 5 binomial, 6 in-order_binary, 7 rabenseifner; bcast 1 basic_linear, 2 chain, 3 pipeline,
// 4 split_binary_tree, 5 binary_tree, 6 binomial, 7 knomial, 8 scatter_allgather,
// 9 scatter_allgather_ring; allgatherv 1 default, 2 bruck, 3 ring, 4 neighbor, 5 two_proc).
// `bytes`: the message (allreduce, reduce, bcast) or one rank's average portion (allgatherv).
// SimGrid 3.32's ompi selector (src/smpi/colls/smpi_openmpi_selector.cpp) has the same
// thresholds (updated to Open MPI's in 2022) and maps the numbers to SMPI's own algorithms.
// 0 for the collectives without a fixed decision (scatterv, gatherv: coll/basic's linear).
int ompi_fixed_decision(Collective c, bool commutative, int p, uint64_t bytes);

// The rules proper: the algorithm with its segment size, fanout and the fallbacks the
// algorithm's own code takes (a ring with fewer elements than ranks, ...).
LibraryAlgorithm open_mpi_rule(const LibraryCall& call, const GeneratorInput& in);
LibraryAlgorithm smpi_ompi_rule(const LibraryCall& call, const GeneratorInput& in);
LibraryAlgorithm smpi_mpich_rule(const LibraryCall& call, const GeneratorInput& in);
// MPICH 4.1 on a communicator without node structure (one rank per node: the ch4 "gamma"
// compositions, i.e. the flat MPIR algorithms of maint/tuning/coll/mpir/generic.json); with
// several ranks per node, its node-aware compositions (two_level, smp_binomial).
LibraryAlgorithm mpich_rule(const LibraryCall& call, const GeneratorInput& in);

// Whether in.nodes puts several ranks on some node.
bool several_ranks_per_node(const GeneratorInput& in);

// The largest power of two <= p, and whether p is one (the libraries' folds and rules).
inline int pof2_floor(int p) {
  int q = 1;
  while (q * 2 <= p) q *= 2;
  return q;
}
inline bool is_pof2(int p) { return p > 0 && (p & (p - 1)) == 0; }

}  // namespace papcoll
