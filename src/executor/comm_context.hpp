// Per-communicator state, cached on the user's communicator as an MPI attribute: the private
// duplicate papcoll talks on (so its tags never meet the application's messages, and errors
// return instead of aborting), generated schedules, and scratch memory. MPI_Comm_dup is collective
// and slow, so it happens on the first papcoll call on a communicator, not on every call.
#pragma once

#include <mpi.h>

#include <list>
#include <memory>

#include "executor/executor.hpp"
#include "executor/mpi_status.hpp"
#include "schedule/registry.hpp"

namespace papcoll {

struct CommContext {
  MPI_Comm comm = MPI_COMM_NULL;  // private duplicate with MPI_ERRORS_RETURN
  int rank = 0;
  int size = 1;
  ScratchBuffer scratch;
  // Work buffer of ranks that have no receive buffer of their own (the non-roots of a reduce):
  // separate from `scratch`, which the executor uses for incoming blocks during the same run.
  ScratchBuffer work;

  // Schedules of algorithms that ignore arrival times depend only on (algorithm, p, blocks, root),
  // and p is fixed per communicator. The key also names the collective (the algorithm row already
  // implies it; a reduce "ring" and an allreduce "ring" are different rows) and the root (-1: none)
  // so schedules of different collectives or roots never meet. Only the own rank's part is kept:
  // it is all the executor reads.
  std::shared_ptr<const RankSchedule> cached_schedule(const AlgorithmInfo* algo, int blocks,
                                                      int root = -1);
  void cache_schedule(const AlgorithmInfo* algo, int blocks,
                      std::shared_ptr<const RankSchedule> rs, int root = -1);

 private:
  struct Entry {
    Collective collective;
    const AlgorithmInfo* algo;
    int blocks;
    int root;
    std::shared_ptr<const RankSchedule> schedule;
  };
  static constexpr size_t kMaxEntries = 16;  // bounds memory if callers sweep block counts
  std::list<Entry> entries_;                 // most recently used first
};

// The context of `user_comm`, created on first use. Collective over `user_comm` the first time
// (it duplicates the communicator); purely local afterwards. Not for MPI_COMM_NULL or
// intercommunicators.
MpiStatus comm_context(MPI_Comm user_comm, CommContext** out);

}  // namespace papcoll
