// PAPCOLL_CHECK=1: before each call every rank verifies that all ranks agree on what MPI requires
// them to agree on (the operation, the type signature of the data, the op, the root and the
// algorithm), and a mismatch comes back as an error on every rank naming the first differing
// ranks and their values, instead of a hang or wrong data. Like the checks of MPI correctness
// tools (MUST, Intel MPI's check_mpi), it costs one small collective per call (an allgather of a
// fixed-size descriptor per rank), so it is off by default; off, it costs one load of a flag read
// once at start-up (docs/errors.md).
#pragma once

#include <mpi.h>

#include "api/collective_call.hpp"

namespace papcoll {

// PAPCOLL_CHECK=1 in the environment when the library was loaded (a constant after load: with
// it off, the call path pays one load and test).
extern const bool g_check_mode;
inline bool check_mode() { return g_check_mode; }

// What one rank passes, as the check compares it.
struct CallDescriptor {
  int root = -1;        // -1: the operation has none
  bool has_op = false;  // reductions
  MPI_Op op = MPI_OP_NULL;
  // The data every rank must agree on: `count` elements of `type` (for all-gatherv the sum of
  // recvcounts of recvtype); count < 0: nothing compared (scatterv/gatherv, whose root
  // broadcasts every portion's size anyway).
  long long count = -1;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  const char* count_name = "count";
  // All-gatherv: a hash of every portion's size in bytes (recvcounts[o] * size(recvtype)).
  unsigned long long portions_hash = 0;
  // The call board's (observe/call_board.hpp BoardCall): what every rank agrees on in units
  // (reductions: elements of unit_type, the one predefined type `type` is made of; bcast,
  // all-gatherv: bytes; scatterv/gatherv: the own portion's bytes), -1 when not known; and every
  // portion's bytes (p entries: all-gatherv, the root of scatterv/gatherv), else null.
  long long units = -1;
  MPI_Datatype unit_type = MPI_DATATYPE_NULL;
  const long long* portions = nullptr;
};

// Collective over the call's communicator (it opens the context). `verdict` is this rank's own
// refusal (PAPCOLL_SUCCESS: none; its message already recorded): a rank that cannot take part in
// the call still takes part in the check, so with PAPCOLL_CHECK=1 every rank learns of it.
// Returns PAPCOLL_SUCCESS on every rank, or on every rank an error: the own verdict where there
// is one, else PAPCOLL_ERR_ARG with "<who>: PAPCOLL_CHECK: <what> differs: rank 0 has ..., rank r
// has ..." (or the refusing rank's code and which rank it was).
int check_call(CollectiveCall& call, MPI_Comm comm, const CallDescriptor& d, int verdict);

// A hash of a list of byte counts, for CallDescriptor::portions_hash.
unsigned long long hash_sizes(const long long* sizes, int n);

}  // namespace papcoll
