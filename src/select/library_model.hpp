// What the MPI library's own collective does for a call, as `auto` weighs it against papcoll's
// schedules (selection.hpp; docs/algorithms.md, "The MPI library in auto"): (a) which algorithm
// the library runs for this collective, size, p, datatype and op (its published decision rules,
// library_rules.hpp), and (b) that algorithm's predicted mean elapsed time under the call's
// arrivals, network parameters and node layout (library_estimates.hpp), the same figure every
// registry row's `predict` gives (own arrival to own finish, averaged over ranks), in O(p) or
// O(p log p) without building a schedule. No MPI here: which library is running is found once
// per process by api/mpi_library.hpp and handed in.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "schedule/registry.hpp"

namespace papcoll {

// The MPI implementations whose decision rules papcoll knows.
enum class MpiLibrary : uint8_t {
  generic,     // unknown: the best of the textbook algorithms papcoll has rows for (the model
               // auto used before it knew libraries; optimistic)
  open_mpi,    // Open MPI 4.1, coll/tuned's fixed decisions
  mpich,       // MPICH 4.1, the ch4 and MPIR JSON tuning
  smpi_ompi,   // SimGrid 3.32 SMPI with smpi/coll-selector:ompi
  smpi_mpich,  // SimGrid 3.32 SMPI with smpi/coll-selector:mpich
};

// "generic", "open-mpi", "mpich", "smpi-ompi", "smpi-mpich".
const char* mpi_library_name(MpiLibrary l);
// The names above, also "ompi" for open-mpi; false for anything else.
bool parse_mpi_library(std::string_view name, MpiLibrary* out);
// What MPI_Get_library_version's text says: Open MPI ("Open MPI v4.1.4 ..."), MPICH ("MPICH
// Version: ..."), else generic (MVAPICH, Intel MPI and the like tune their own rules).
MpiLibrary mpi_library_from_version(std::string_view version);

// The algorithms the libraries run (docs/algorithms.md lists which library runs which, where).
enum class LibraryAlgo : uint8_t {
  // all-reduce
  recursive_doubling,      // whole-vector butterfly, non-powers of two folded (MPICH's fold)
  ring,                    // ring reduce-scatter + ring all-gather
  segmented_ring,          // the ring with its reduce-scatter in phases of segment_bytes
  rabenseifner,            // halving reduce-scatter + doubling all-gather, MPICH's fold
  rabenseifner_ompi_fold,  // the same with Open MPI's fold (pairs exchange halves first)
  reduce_bcast,            // the library's reduce to rank 0, then its broadcast
  linear_reduce_bcast,     // the linear reduce to rank 0, then the linear broadcast
  two_level,               // per node, then among node leaders, then per node (MVAPICH, MPICH)
  // reduce
  linear,                 // the root takes every rank's vector in turn
  chain,                  // fanout chains from the root (1: the pipeline), segments
  binary,                 // k-ary tree of fanout 2, segments
  binomial,               // binomial tree, segments
  in_order_binary,        // Open MPI's in-order binary tree to rank p - 1, then to the root
  reduce_scatter_gather,  // Rabenseifner's reduce: halving reduce-scatter + binomial gather
  knomial,                // k-nomial tree (fanout = radix), whole messages
  // broadcast (also linear, chain, binary, binomial, knomial)
  ompi_binomial,     // Open MPI's binomial tree, every child's send at once
  split_binary,      // halves down the two subtrees of a binary tree, then exchanged
  scatter_doubling,  // binomial scatter + recursive-doubling all-gather
  scatter_ring,      // binomial scatter + ring all-gather
  smp_binomial,      // binomial among node leaders, then within each node
  // all-gatherv
  gatherv_bcast,  // linear gather to rank 0, then the library's broadcast
  bruck,
  neighbor_exchange,
  allgather_doubling,  // recursive doubling (powers of two)
  pairwise,            // p - 1 steps, rank r with r xor / +- k
  // scatterv, gatherv
  linear_v,
};

struct LibraryAlgorithm {
  LibraryAlgo algo = LibraryAlgo::linear;
  const char* name = "";     // the library's own name for it ("rabenseifner", "knomial", ...)
  double segment_bytes = 0;  // segment size; 0: whole messages
  int fanout = 0;            // chains, tree fanout, k-nomial radix; 0 where none
  bool concurrent = false;   // a tree parent posts all its children's sends at once
};

struct LibraryCall {
  Collective collective = Collective::allreduce;
  MpiLibrary library = MpiLibrary::generic;
  double type_bytes = 1;    // one element of the call's datatype (counts = bytes / type_bytes)
  bool commutative = true;  // the op's (reductions)
};

// (a) The algorithm `call.library` runs for `in` (p, bytes, root; in.counts for all-gatherv):
// its decision rule, with its segment size. generic: the textbook algorithm with the least
// estimate for equal arrivals.
LibraryAlgorithm library_algorithm(const LibraryCall& call, const GeneratorInput& in);
// (b) That algorithm's mean elapsed time (own arrival to own finish, averaged over ranks) under
// in.arrivals (empty: all equal), in.cost (and its intra-node parameters) and in.nodes.
double library_predict(const LibraryCall& call, const GeneratorInput& in);
// Each rank's finish time (arrivals as in (b)); library_predict averages finish - arrival.
std::vector<double> library_finish(const LibraryCall& call, const GeneratorInput& in);

}  // namespace papcoll
