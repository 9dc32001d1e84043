// What the report, the watchdog and the call board do, from the environment (read once when the
// library is loaded, the same way on every rank: mpirun exports one environment):
//   PAPCOLL_REPORT=FILE          record every collective papcoll handles and write the straggler
//                                report (docs/report-format.md) to FILE at MPI_Finalize
//   PAPCOLL_REPORT_SAMPLES=N     calls kept per communicator and call key before the log is
//                                thinned (report_record.hpp); default 512, 16..1048576
//   PAPCOLL_TIMEOUT=SECONDS      the hang watchdog's timeout (watchdog.hpp); unset: 300 s for
//                                papcoll's own calls; 0: off. Set, it also watches the calls the
//                                interposition library hands to the MPI library
//   PAPCOLL_TIMEOUT_ACTION=warn|abort   what the watchdog does (default warn)
//   PAPCOLL_BOARD=0              no call board (call_board.hpp): no watchdog, and a rank that
//                                refuses a call is not announced (docs/errors.md)
//   PAPCOLL_BOARD_SHARED=0       TESTING: read the board with MPI_Get even when every rank is on
//                                one node (the path of communicators that span nodes)
// Under SimGrid SMPI (no threads, no common memory between simulated hosts) all of it is off.
#pragma once

#include <string>

namespace papcoll::observe {

struct ObserveConfig {
  bool board = true;
  bool board_shared = true;
  bool report = false;
  std::string report_path;
  int report_samples = 512;
  double timeout = kDefaultTimeout;  // seconds; 0: the watchdog is off
  bool timeout_given = false;        // PAPCOLL_TIMEOUT is set
  bool abort = false;                // PAPCOLL_TIMEOUT_ACTION=abort
  // Without PAPCOLL_TIMEOUT: a program that hangs in papcoll says why after five minutes, long
  // past any wait a healthy program has in one collective (a rank writing a checkpoint while the
  // others wait in a broadcast gets a warning, then the "completed after" line).
  static constexpr double kDefaultTimeout = 300;
  bool watchdog() const { return timeout > 0; }
};

const ObserveConfig& config();

// The one test on the call path: anything above is on. A constant after load.
extern const bool g_active;
inline bool active() { return g_active; }
// The report or the watchdog is on: the interposition library's calls to the MPI library are
// observed too (intercept_observe.hpp). A constant after load.
extern const bool g_watching_native;

}  // namespace papcoll::observe
