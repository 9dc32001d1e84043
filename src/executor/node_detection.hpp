// Which ranks of a communicator share a node, detected with MPI and agreed on by every rank
// (model/node_layout.hpp is the layout itself). MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) is the
// one source: Open MPI and MPICH split by the node the runtime placed each process on, SimGrid
// SMPI by simulated host (docs/smpi.md, "Platforms of many-core nodes"). The communicator's
// context detects once, at its creation (src/executor/comm_context.hpp); the call path reads the
// cached layout.
#pragma once

#include <mpi.h>

#include <memory>

#include "executor/mpi_status.hpp"
#include "model/node_layout.hpp"

namespace papcoll {

// This rank's node as MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) sees it, without agreement:
// `leader` is the lowest rank of `comm` on the node, `size` how many ranks of `comm` are on it.
// Collective over `comm` (the split).
struct SharedNode {
  int leader = 0;
  int size = 1;
};
MpiStatus shared_node_of(MPI_Comm comm, SharedNode* out);

struct NodeLayouts {
  // What MPI says: ranks that share memory. What shared-memory transports rely on.
  std::shared_ptr<const NodeLayout> machine;
  // What schedules and the cost model read: PAPCOLL_NODES where it is set on every process, else
  // `machine`.
  std::shared_ptr<const NodeLayout> nodes;
  bool overridden = false;  // `nodes` came from PAPCOLL_NODES
};

// Both layouts of `comm`, identical on every rank: shared_node_of, then one MPI_Allgather of each
// rank's leader and its PAPCOLL_NODES label (the node of its rank in MPI_COMM_WORLD under the
// override). The override applies only when it is set and valid on every rank; a rank whose
// value is invalid says why on stderr once (docs/errors.md) and the detected layout is used.
// Collective over `comm`.
MpiStatus detect_node_layouts(MPI_Comm comm, NodeLayouts* out);

}  // namespace papcoll
