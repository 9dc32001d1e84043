// What PAPCOLL_VERBOSE=1 reports: each (communicator, operation, algorithm) the first time this
// rank runs it as the communicator's rank 0, and at MPI_Finalize a summary over all ranks of
// MPI_COMM_WORLD: calls, bytes and time per operation and algorithm, and the calls that went to
// the MPI library because papcoll refused them (intercommunicator, non-commutative op, ...).
#pragma once

#include <mpi.h>

#include <string>

#include "intercept/intercept_config.hpp"

namespace papcoll::intercept {

// One finished call on this rank. `algorithm` is what ran ("native" for PMPI_; "none" when there
// was nothing to move); `refusal` is papcoll's message when it refused the call and the MPI
// library ran it instead.
void record_call(Operation op, MPI_Comm comm, const std::string& algorithm, double bytes,
                 double seconds, const std::string& refusal = "");

// Collective over MPI_COMM_WORLD (called from the MPI_Finalize wrapper before PMPI_Finalize):
// rank 0 prints the summary on stderr.
void print_summary();

}  // namespace papcoll::intercept
