// The reduce wrapper of the executor: the schedule engine is execute_schedule
// (executor.hpp); this only decides which buffer the schedule runs on and what it holds before.
#pragma once

#include <mpi.h>

#include <cstdint>

#include "executor/executor.hpp"
#include "executor/shared_window.hpp"

namespace papcoll {

// Reduce to `root` (the schedule's root). The root runs the schedule on recvbuf (sendbuf copied
// in first unless it is MPI_IN_PLACE), so the result ends there. Every other rank needs a work
// buffer its receives may overwrite: it takes it from `work` (per communicator, separate from
// `scratch`, which holds incoming blocks during the run), and never writes sendbuf or recvbuf
// (which may be NULL there). A non-root whose part of the schedule has no receive (a leaf of the
// tree, every sender of a flat gather) sends straight from sendbuf: the executor only ever writes
// the work buffer to land a receive. With `window` (every rank on one node, a one-version
// schedule: shared_transport.hpp) the schedule runs over the shared-memory transport.
MpiStatus execute_reduce(const RankSchedule& rs, int blocks, int rank, int root,
                         const void* sendbuf, void* recvbuf, int64_t count,
                         const DatatypeLayout& layout, MPI_Op op, MPI_Comm comm,
                         ScratchBuffer& scratch, ScratchBuffer& work,
                         SharedWindow* window = nullptr);

}  // namespace papcoll
