// What the interposition library does per operation, from the environment (docs/intercept.md):
// PAPCOLL_ALLREDUCE, PAPCOLL_REDUCE, PAPCOLL_BCAST, PAPCOLL_ALLGATHERV, PAPCOLL_SCATTERV,
// PAPCOLL_GATHERV = auto | native | a name papcoll_algorithms() lists for the operation;
// PAPCOLL_MODEL=FILE (the link model of the model-based scatterv/gatherv trees);
// PAPCOLL_HISTORY=0 (no arrival history), PAPCOLL_HISTORY_MIN_BYTES=N; PAPCOLL_VERBOSE=1. Read
// once, on first use, the same way on every rank (the environment mpirun exports), so every rank
// takes the same path.
#pragma once

#include <string>

namespace papcoll::intercept {

enum class Operation { allreduce, reduce, bcast, allgatherv, scatterv, gatherv, count };

const char* operation_name(Operation op);     // "allreduce"
const char* mpi_function_name(Operation op);  // "MPI_Allreduce"

struct OperationChoice {
  bool native = false;    // straight to PMPI_
  std::string algorithm;  // papcoll's name ("auto" by default)
  bool is_auto = true;    // algorithm == "auto", decided once
};

struct Config {
  OperationChoice ops[static_cast<int>(Operation::count)];
  bool verbose = false;
  std::string model_file;  // PAPCOLL_MODEL; empty: none
  // Arrival history for allreduce and reduce (a history-mode progress monitor per communicator,
  // docs/intercept.md): on unless PAPCOLL_HISTORY=0, for calls of at least history_min_bytes.
  bool history = true;
  long long history_min_bytes = 64 * 1024;
  // PAPCOLL_HISTORY_SAMPLE: a balanced call site's arrivals are measured on one call in this many
  // (papcoll_monitor_config::history_sample; docs/intercept.md, "No tax on balanced calls").
  int history_sample = 16;
  const OperationChoice& operator[](Operation op) const { return ops[static_cast<int>(op)]; }
};

// Parsed on the first call; an unknown value gives one warning on stderr and the native path.
const Config& config();

}  // namespace papcoll::intercept
