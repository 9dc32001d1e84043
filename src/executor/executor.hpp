// Runs one rank's part of a Schedule with nonblocking point-to-point messages. The executor only
// moves and combines blocks of a work buffer; what the buffer holds before and after (sendbuf
// copied in for allreduce, a root's data for bcast, ...) is the business of the per-collective
// wrappers below, so new collectives reuse the same engine.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "executor/datatype_layout.hpp"
#include "executor/mpi_status.hpp"
#include "schedule/blocks.hpp"
#include "schedule/schedule.hpp"

namespace papcoll {

// Memory for receives that cannot land in the work buffer directly. The caller owns it (one per
// communicator) so a hot loop neither allocates nor faults in fresh pages on every call.
class ScratchBuffer {
 public:
  // At least `bytes` of uninitialised memory; previous contents are not kept.
  char* reserve(int64_t bytes);
  // After a failed run a receive may still be posted into the current memory: give it up (leak it)
  // rather than let a later call reuse or free it under MPI's feet.
  void abandon();

 private:
  std::unique_ptr<char[]> data_;
  int64_t size_ = 0;
};

struct ExecBuffer {
  void* work = nullptr;  // MPI buffer address of `count` elements, already initialised
  int64_t count = 0;
  DatatypeLayout layout;
  MPI_Op op = MPI_OP_NULL;  // for Combine::reduce: result = incoming op local
  // Where block b lives: (*block_table)[b] (elements from `work`) when given, which is how the
  // v-collectives place each origin's blocks at its displacement; else the even split of `count`
  // (blocks.hpp). Every rank must use the same table, since both sides of a message derive its
  // element ranges (and skip empty messages) from it.
  const std::vector<BlockRange>* block_table = nullptr;
  // Where every block's value is until the run first writes or combines it there (an
  // all-reduce's send buffer, laid out like `work` and never written); null: `work` already holds
  // them. Each block is copied into `work` as late as the schedule allows, and a block that is
  // only sent before it is overwritten is never copied: a late rank starts sending its data at
  // once instead of after copying the whole buffer (4 MiB: about 0.7 ms charged in SMPI).
  const void* initial = nullptr;
};

// Executes `rs` (the calling rank's steps of a schedule with `blocks` blocks) on `comm`, which
// must have MPI_ERRORS_RETURN and must not carry other traffic with the same tags (a private
// duplicate). Collective over `comm`: every rank runs its own part of the same schedule.
MpiStatus execute_schedule(const RankSchedule& rs, int blocks, const ExecBuffer& buf, MPI_Comm comm,
                           ScratchBuffer& scratch);

class SharedWindow;

// Allreduce: copies sendbuf (unless MPI_IN_PLACE) into recvbuf and runs the schedule there, over
// `window` when given (a one-version schedule on one node: shared_transport.hpp).
MpiStatus execute_allreduce(const RankSchedule& rs, int blocks, const void* sendbuf, void* recvbuf,
                            int64_t count, const DatatypeLayout& layout, MPI_Op op, MPI_Comm comm,
                            ScratchBuffer& scratch, SharedWindow* window = nullptr);

}  // namespace papcoll
