// The interposition library's part in the report and the watchdog (docs/intercept.md): calls
// that go straight to the MPI library (an operation set to native, a call papcoll refused on
// every rank, a link model that failed) are observed like papcoll's own when PAPCOLL_REPORT or
// PAPCOLL_TIMEOUT is set, so the report and the watchdog cover every intercepted collective.
// Kept apart from intercept.cpp's dispatch, which only calls observed_native().
#pragma once

#include <mpi.h>

#include "intercept/intercept_config.hpp"
#include "observe/call_watch.hpp"
#include "prediction/monitor.hpp"

namespace papcoll::intercept {

// `agreed_bytes`: what every rank passes alike (-1: not known), `root` (-1: none).
template <typename RunNative>
int observed_native(Operation op, MPI_Comm comm, double agreed_bytes, int root,
                    RunNative run_native) {
  if (!observe::watching_native() || comm == MPI_COMM_NULL) return run_native();
  // No clock read here: the report reads one only for the calls it samples (report_record.hpp),
  // and the watchdog times a call from when it first sees it.
  observe::CallWatch watch(comm, static_cast<int>(op), NAN);
  if (watch.unattached()) {  // an observer is only ever made for an intra-communicator
    int inter = 0;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter) {
      watch.forget();
      return run_native();
    }
  }
  watch.attach(comm);  // the first call on the communicator makes its observer (collective)
  watch.set_key(static_cast<long long>(agreed_bytes), root);
  watch.read_entry();
  watch.ran("native", observe::AutoReason::named, NAN);
  return run_native();
}

}  // namespace papcoll::intercept
