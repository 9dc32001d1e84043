// Per-communicator state, cached on the user's communicator as an MPI attribute: the private
// duplicate papcoll talks on (so its tags never meet the application's messages, and errors
// return instead of aborting), generated schedules, and scratch memory. MPI_Comm_dup is collective
// and slow, so it happens on the first papcoll call on a communicator, not on every call.
#pragma once

#include <mpi.h>

#include <memory>
#include <vector>

#include "calibration/network_params.hpp"
#include "executor/executor.hpp"
#include "executor/mpi_status.hpp"
#include "executor/node_exchange.hpp"
#include "executor/shared_window.hpp"
#include "model/link_model_cache.hpp"
#include "model/node_layout.hpp"
#include "schedule/registry.hpp"
#include "schedule/schedule_cache.hpp"

namespace papcoll {

struct CommContext {
  MPI_Comm comm = MPI_COMM_NULL;  // private duplicate with MPI_ERRORS_RETURN
  int rank = 0;
  int size = 1;
  // Which ranks share a node (node_detection.hpp), detected once at creation and identical on
  // every rank. `nodes` is what schedules and the cost model read: PAPCOLL_NODES where it is set,
  // else what MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) says, which `machine_nodes` always holds
  // (what shared memory can rely on). Never null once the context exists.
  std::shared_ptr<const NodeLayout> nodes;
  std::shared_ptr<const NodeLayout> machine_nodes;
  bool nodes_overridden = false;  // PAPCOLL_NODES is in effect
  // `nodes` when it has several nodes and some node holds several ranks, else null: what a call's
  // GeneratorInput::nodes carries. One rank per node is the flat model every row assumes, and one
  // node is the shared-memory case (its own forms of the one-version schedules).
  std::shared_ptr<const NodeLayout> schedule_nodes;
  // Ranks outnumber cores on some node (core_sharing.hpp); the same on every rank.
  bool cores_shared = false;
  ScratchBuffer scratch;
  // Work buffer of ranks that have no receive buffer of their own (the non-roots of a reduce):
  // separate from `scratch`, which the executor uses for incoming blocks during the same run.
  ScratchBuffer work;
  // Every rank is on one node (in both layouts) and PAPCOLL_SHARED_MEMORY is not 0
  // (SharedWindow::usable): the
  // copy-only collectives may use the shared-memory transport (shared_transport.hpp). The same on
  // every rank; turned off for good if the window cannot be allocated.
  bool shared_memory = false;
  // The window sized for a call of `blocks` blocks over `data_bytes` of packed data, or null when
  // the transport is off or the call is too large for it (fits_shared_window). Collective over
  // `comm`, with arguments identical on every rank.
  SharedWindow* shared_window(int64_t blocks, int64_t data_bytes);
  SharedWindow window;

  // The schedules this rank ran on the communicator, by what they were generated from
  // (src/api/schedule_source.cpp builds the keys).
  ScheduleCache schedules;
  // The latest call's schedule and input, which a repeated call takes without building its key.
  LastSchedule last_schedule;
  // What `auto` chose lately on it, for its generation-cost charge (identical on every rank).
  RecentChoices recent_choices;
  // auto's latest choices, answering a repeated call without weighing it again.
  RememberedChoices remembered_choices;
  // The storage of a call's agreed arrival times (p doubles), handed back after the call: a
  // repeated call allocates nothing for them. Under SimGrid every simulated rank shares one heap,
  // and an allocation of this size there cost one rank in a thousand about a millisecond per call
  // (a balanced all-reduce at 1024 ranks: 1.7 ms), which everyone else then waited for.
  std::vector<double> arrivals_spare;

  // The link models of options.model_file, identical on every rank (link_model_cache.hpp).
  LinkModelCache link_models;

  // The network's parameters (src/calibration/calibrate.hpp), identical on every rank: set
  // collectively by the first call that reads them, or by papcoll_calibrate.
  NetworkParams network;
  bool network_known = false;

  // The slowest rank's time per round of a ring through the executor (step_overhead.hpp),
  // identical on every rank: measured by the first `auto` call that weighs candidates, where
  // ranks have cores of their own.
  double ring_round = 0;
  bool ring_round_known = false;
  // A node-wide exchange as it ran (node_exchange.hpp), identical on every rank: measured after
  // the ring where `schedule_nodes` is set; zeros: not measured.
  ExchangeLine node_exchange;
  bool node_exchange_known = false;
};

// The context of `user_comm`, created on first use. Collective over `user_comm` the first time
// (it duplicates the communicator); purely local afterwards. Not for MPI_COMM_NULL or
// intercommunicators.
MpiStatus comm_context(MPI_Comm user_comm, CommContext** out);

// The context of `user_comm` when it is the one this thread's last comm_context returned and no
// context has been deleted since (a freed communicator's handle may be reused); else null. No MPI
// call: a call that hits knows the communicator's size and rank, and that it is an
// intracommunicator, without asking MPI (each query costs a few microseconds where MPI calls are
// dear: SMPI charges the code between two calls, cold, to the simulated rank).
CommContext* last_comm_context(MPI_Comm user_comm);

}  // namespace papcoll
