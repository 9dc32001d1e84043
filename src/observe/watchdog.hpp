// The hang watchdog (PAPCOLL_TIMEOUT=SECONDS, default 300; PAPCOLL_TIMEOUT_ACTION=warn|abort):
// one thread per process that looks, a few times per timeout, at this process's own board slots
// (loads from its own memory: nothing on the call path). When a rank has been in the same call of
// a communicator for longer than the timeout, it reads every slot of that communicator's board
// and the lowest rank that is in the call prints one line on stderr naming the communicator, the
// operation, the call number, the ranks that have not arrived (their slot shows an earlier call),
// those that refused the call with their message, and what the ranks that got there disagree on
// (the calls they published: operation, root, algorithm, op, data, ...; disagreement.hpp); when
// the call completes, that rank says after how long. With abort it then calls MPI_Abort.
//
// The thread reads shared boards with loads and calls no MPI function, so it needs no thread
// level; a board across nodes is read with MPI_Rget, which needs MPI_THREAD_MULTIPLE (the
// interposition library requests it when PAPCOLL_TIMEOUT is set and the job spans nodes): without
// it the line says the ranks could not be read.
#pragma once

#include <cstdint>

namespace papcoll::observe {

struct CommObserver;

void start_watchdog();  // idempotent
void stop_watchdog();   // joins the thread (MPI_Finalize)
// The call path, at the end of call `seq` the watchdog warned about: the "completed after" line
// (printed once, by the rank that printed the warning), so it comes even when the program ends
// before the watchdog's next look.
void call_completed(CommObserver& o, std::uint64_t seq);

}  // namespace papcoll::observe
