// The broadcast and all-gather(v) wrappers of the executor. The schedule engine is
// execute_schedule (executor.hpp); these only say where the blocks live and what the buffer holds
// before the run.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "executor/executor.hpp"
#include "executor/shared_window.hpp"

namespace papcoll {

// Broadcast: the root's buffer already holds the data and is only read (a broadcast schedule has
// no receive at the root); the other ranks' buffers are overwritten block by block.
MpiStatus execute_bcast(const RankSchedule& rs, int blocks, void* buffer, int64_t count,
                        const DatatypeLayout& layout, MPI_Comm comm, ScratchBuffer& scratch);

// Where the blocks of an all-gatherv live in recvbuf: global block o*n + j is block j of origin
// o's portion, the even split (blocks.hpp) of recvcounts[o] elements starting at element
// displs[o]. Origins with a zero count own n empty blocks, which no message carries.
std::vector<BlockRange> allgatherv_block_table(const int* recvcounts, const int* displs, int p,
                                               int n);

// All-gatherv on recvbuf with the table above (n = blocks / p per origin); `own` is this rank's
// contribution, already in place at displs[rank] (the caller copies it). With a window
// (CommContext::shared_window, reserved for the table's blocks and elements) over the
// shared-memory transport, else with messages.
MpiStatus execute_allgatherv(const RankSchedule& rs, const std::vector<BlockRange>& table,
                             void* recvbuf, const DatatypeLayout& layout, MPI_Comm comm,
                             ScratchBuffer& scratch, SharedWindow* window = nullptr);

}  // namespace papcoll
