// The executor's second transport: a one-version schedule (every rank's sends of a block carry
// the same data: all-gatherv's, and the reduce trees marked `one_version` in the registry) runs
// over a shared-memory window (shared_window.hpp) instead of point-to-point messages when every
// rank of the communicator is on one node. A send publishes the block: the first send of a block
// in a call copies it into the rank's segment and raises the block's flag, later sends of the
// same block cost nothing. A receive waits for the sender's flag and copies the block out, or
// reduces it into the rank's own block straight from the sender's segment. So a block sent to k
// ranks is copied 1 + k times instead of 2k over the shared-memory BTL, and the linear schedule
// (every origin to every rank directly) is the cheapest one: allgatherv's "auto" picks it when
// this transport is on (api/allgatherv.cpp). A sender is done once it has published: it does not
// wait for its readers (a reduce's leaves leave at once, docs/shared-memory.md).
//
// Same order as execute_schedule: per step the sends (publishes) first, then the receives, so the
// deadlock argument of executor.cpp carries over (a rank only waits for publishes of rounds <=
// its own). A rank overwrites its segment only after every rank has finished reading the previous
// call's data (SharedWindow::begin_call).
#pragma once

#include <mpi.h>

#include <cstdint>

#include "executor/executor.hpp"
#include "executor/shared_window.hpp"

namespace papcoll {

// Largest window, summed over every rank's segment, that papcoll allocates (1 GiB); larger
// calls use messages. The same on every rank, like its inputs.
bool fits_shared_window(int p, int64_t blocks, int64_t data_bytes);

// Runs `rs` (one-version; a send after a receive into the same block fails with MPI_ERR_INTERN)
// over `win`, already reserved for `blocks` flags and for the elements of
// all blocks (buf.block_table or the even split) in packed form, one block after the other:
// CommContext::shared_window. The block lengths must be the same on every rank; the offsets in
// each rank's own buffer need not.
// `comm` only supplies the error handler for packing; `scratch` holds a block of a datatype with
// holes while it is reduced.
MpiStatus execute_schedule_shared(const RankSchedule& rs, int blocks, const ExecBuffer& buf,
                                  SharedWindow& win, MPI_Comm comm, ScratchBuffer& scratch);

// `rs` over `window` when there is one (the caller's agreed choice), else with messages
// (execute_schedule): the one place the two transports are chosen between.
MpiStatus execute_schedule_on(const RankSchedule& rs, int blocks, const ExecBuffer& buf,
                              MPI_Comm comm, ScratchBuffer& scratch, SharedWindow* window);

}  // namespace papcoll
