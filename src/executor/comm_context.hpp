// Per-communicator state, cached on the user's communicator as an MPI attribute: the private
// duplicate papcoll talks on (so its tags never meet the application's messages, and errors
// return instead of aborting), generated schedules, and scratch memory. MPI_Comm_dup is collective
// and slow, so it happens on the first papcoll call on a communicator, not on every call.
#pragma once

#include <mpi.h>

#include <list>
#include <memory>
#include <string>

#include "executor/executor.hpp"
#include "executor/mpi_status.hpp"
#include "executor/shared_window.hpp"
#include "model/link_model_cache.hpp"
#include "schedule/registry.hpp"

namespace papcoll {

// What a cached schedule was generated from. Most schedules depend only on (algorithm, p, blocks,
// root), and p is fixed per communicator; the scatterv/gatherv trees also depend on the portion
// sizes, the Hockney parameters and the link model (scatter_gather_generators.hpp), which
// `input` (their bytes) and `link_model` (by identity) carry.
struct ScheduleKey {
  Collective collective;
  const AlgorithmInfo* algo;  // null: the collective's "auto" choice, itself a function of the key
  int blocks;
  int root = -1;  // -1: none
  std::string input;
  // Compared by address; the entry holds it, so the address cannot be reused by another model
  // while the entry lives.
  std::shared_ptr<const LinkModel> link_model;
};

struct CommContext {
  MPI_Comm comm = MPI_COMM_NULL;  // private duplicate with MPI_ERRORS_RETURN
  int rank = 0;
  int size = 1;
  // Ranks outnumber cores on some node (core_sharing.hpp); the same on every rank.
  bool cores_shared = false;
  ScratchBuffer scratch;
  // Work buffer of ranks that have no receive buffer of their own (the non-roots of a reduce):
  // separate from `scratch`, which the executor uses for incoming blocks during the same run.
  ScratchBuffer work;
  // Every rank is on one node and PAPCOLL_SHARED_MEMORY is not 0 (SharedWindow::usable): the
  // copy-only collectives may use the shared-memory transport (shared_transport.hpp). The same on
  // every rank; turned off for good if the window cannot be allocated.
  bool shared_memory = false;
  // The window sized for a call of `blocks` blocks over `data_bytes` of packed data, or null when
  // the transport is off or the call is too large for it (fits_shared_window). Collective over
  // `comm`, with arguments identical on every rank.
  SharedWindow* shared_window(int64_t blocks, int64_t data_bytes);
  SharedWindow window;

  // Schedules of algorithms that ignore arrival times, by what they depend on (ScheduleKey). The
  // key also names the collective (the algorithm row already implies it; a reduce "ring" and an
  // allreduce "ring" are different rows) and the root (-1: none) so schedules of different
  // collectives or roots never meet. Only the own rank's part is kept: it is all the executor
  // reads.
  std::shared_ptr<const RankSchedule> cached_schedule(const AlgorithmInfo* algo, int blocks,
                                                      int root = -1);
  void cache_schedule(const AlgorithmInfo* algo, int blocks,
                      std::shared_ptr<const RankSchedule> rs, int root = -1);
  // The same with the whole key (schedules that depend on more than the algorithm and blocks).
  // `chosen`: for a key with algo == null ("auto"), the algorithm whose schedule it is.
  std::shared_ptr<const RankSchedule> cached_schedule(const ScheduleKey& key,
                                                      const AlgorithmInfo** chosen = nullptr);
  void cache_schedule(ScheduleKey key, std::shared_ptr<const RankSchedule> rs,
                      const AlgorithmInfo* chosen = nullptr);

  // The link models of options.model_file, identical on every rank (link_model_cache.hpp).
  LinkModelCache link_models;

 private:
  struct Entry {
    ScheduleKey key;
    std::shared_ptr<const RankSchedule> schedule;
    const AlgorithmInfo* chosen = nullptr;
  };
  static constexpr size_t kMaxEntries = 16;  // bounds memory if callers sweep block counts
  std::list<Entry> entries_;                 // most recently used first
};

// The context of `user_comm`, created on first use. Collective over `user_comm` the first time
// (it duplicates the communicator); purely local afterwards. Not for MPI_COMM_NULL or
// intercommunicators.
MpiStatus comm_context(MPI_Comm user_comm, CommContext** out);

}  // namespace papcoll
