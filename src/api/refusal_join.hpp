// The driver's side of a refusal settled on the call board (observe/refusal.hpp): running the
// other ranks' call with stand-in data (allreduce and reduce: the op's identity; bcast: zeros at
// a root, a scratch buffer elsewhere; docs/errors.md), and the code and message each outcome
// gives the refusing rank.
#pragma once

#include <mpi.h>

#include "observe/call_watch.hpp"

namespace papcoll {

// This rank refused the call `watch` numbers with `code` (its message recorded). Returns the
// code; the message says how the refusal was settled, and is marked local (the other ranks went
// on: the interposition library must not run the call natively on this rank alone) unless every
// rank refused.
int settle_on_board(MPI_Comm comm, int rank, int code, observe::CallWatch& watch);

}  // namespace papcoll
