#include "executor/mpi_status.hpp"

namespace papcoll {

std::string describe(const MpiStatus& s) {
  char text[MPI_MAX_ERROR_STRING] = {0};
  int len = 0;
  std::string what = MPI_Error_string(s.code, text, &len) == MPI_SUCCESS
                         ? std::string(text, static_cast<size_t>(len))
                         : "MPI error code " + std::to_string(s.code);
  return std::string(s.call) + " failed: " + what;
}

}  // namespace papcoll
