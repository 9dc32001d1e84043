// Whether the ranks of a communicator outnumber the cores they run on, on some node. Then
// concurrent transfers do not overlap: every message is copied by a CPU (shared memory) and the
// ranks queue for the same cores, so the Hockney model's premise (independent links working in
// parallel) fails and pipelining a message over more rounds only adds rounds (registry.hpp,
// pipeline_blocks). Decided once per communicator and agreed on by every rank, because block
// counts derived from it must be identical everywhere.
#pragma once

#include <mpi.h>

#include "executor/mpi_status.hpp"

namespace papcoll {

// The local rule: more ranks on the node than CPUs this process may run on.
inline bool node_oversubscribed(int ranks_on_node, int usable_cpus) {
  return usable_cpus > 0 && ranks_on_node > usable_cpus;
}

// True on every rank when node_oversubscribed holds on any node of `comm` (collective; each rank
// passes how many ranks of `comm` share its node, node_detection.hpp), or when
// PAPCOLL_CORES_SHARED=1 on any rank; PAPCOLL_CORES_SHARED=0 on every rank makes it false. Under
// SimGrid SMPI (one real process simulating every host) always false: the simulated hosts, not
// the real CPUs, do the work there.
MpiStatus detect_cores_shared(MPI_Comm comm, int ranks_on_node, bool* out);

}  // namespace papcoll
