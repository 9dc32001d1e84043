#include "executor/mpi_status.hpp"

#include <vector>

namespace papcoll {

std::string describe(const MpiStatus& s) {
  char text[MPI_MAX_ERROR_STRING] = {0};
  int len = 0;
  std::string what = MPI_Error_string(s.code, text, &len) == MPI_SUCCESS
                         ? std::string(text, static_cast<size_t>(len))
                         : "MPI error code " + std::to_string(s.code);
  int cls = s.code;
  if (MPI_Error_class(s.code, &cls) != MPI_SUCCESS) cls = s.code;
  if (cls == MPI_ERR_TRUNCATE) what += " (counts differ between ranks?)";
  return std::string(s.call) + " failed: " + what;
}

MpiStatus wait_all(int n, MPI_Request* requests, const char* call) {
  if (n <= 0) return {};
  // Reused per thread: the executor waits once per step, and allocating there would show in
  // small messages' latency.
  thread_local std::vector<MPI_Status> statuses;
  if (statuses.size() < static_cast<size_t>(n)) statuses.resize(static_cast<size_t>(n));
  const int rc = MPI_Waitall(n, requests, statuses.data());
  if (rc != MPI_ERR_IN_STATUS) return mpi_check(rc, call);
  int first = MPI_ERR_IN_STATUS;
  for (int i = 0; i < n; ++i) {
    const int e = statuses[static_cast<size_t>(i)].MPI_ERROR;
    if (e == MPI_SUCCESS || e == MPI_ERR_PENDING) continue;
    int cls = e;
    if (MPI_Error_class(e, &cls) != MPI_SUCCESS) cls = e;
    if (cls == MPI_ERR_TRUNCATE) return {e, call};  // the one that names its cause
    if (first == MPI_ERR_IN_STATUS) first = e;
  }
  return {first, call};
}

}  // namespace papcoll
