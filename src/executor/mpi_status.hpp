// The outcome of a sequence of MPI calls. The executor runs on a communicator with
// MPI_ERRORS_RETURN, so a failure comes back as a code; keeping the name of the failing call lets
// the C API say which call broke instead of only "MPI error".
#pragma once

#include <mpi.h>

#include <string>

namespace papcoll {

struct MpiStatus {
  int code = MPI_SUCCESS;
  const char* call = "";  // static string naming the failing MPI function

  bool ok() const { return code == MPI_SUCCESS; }
};

// Wraps one MPI return code; `call` must be a string literal.
inline MpiStatus mpi_check(int code, const char* call) { return MpiStatus{code, call}; }

// "MPI_Isend failed: <MPI's own error string>"; a truncated receive adds "(counts differ between
// ranks?)", the usual cause when papcoll's messages are longer than their receives.
std::string describe(const MpiStatus& s);

// MPI_Waitall over `n` requests, with statuses: MPI reports a failed request only as
// MPI_ERR_IN_STATUS, so the statuses are inspected and the first request's own error class is
// returned (MPI_ERR_TRUNCATE when a message was longer than its receive) under the name `call`.
MpiStatus wait_all(int n, MPI_Request* requests, const char* call = "MPI_Waitall");

}  // namespace papcoll

// Returns from the enclosing function (which returns MpiStatus) when an MPI call fails.
#define PAPCOLL_MPI_TRY(call_expr, name)                                              \
  do {                                                                                \
    const ::papcoll::MpiStatus papcoll_st_ = ::papcoll::mpi_check((call_expr), name); \
    if (!papcoll_st_.ok()) return papcoll_st_;                                        \
  } while (0)

// Returns from the enclosing function (which returns a papcoll code) when `expr`, a papcoll code,
// is not PAPCOLL_SUCCESS (0).
#define PAPCOLL_TRY(expr)                     \
  do {                                        \
    const int papcoll_rc_ = (expr);           \
    if (papcoll_rc_ != 0) return papcoll_rc_; \
  } while (0)
