#include "error/error.hpp"

#include "papcoll/papcoll.h"

namespace papcoll {
namespace {
thread_local std::string t_last_error;
thread_local bool t_last_error_local = false;
}  // namespace

int fail(int code, std::string message) {
  t_last_error = std::move(message);
  t_last_error_local = false;
  return code;
}

int fail_local(int code, std::string message) {
  t_last_error = std::move(message);
  t_last_error_local = true;
  return code;
}

bool last_error_is_local() { return t_last_error_local; }

}  // namespace papcoll

extern "C" const char* papcoll_last_error(void) { return papcoll::t_last_error.c_str(); }

extern "C" const char* papcoll_error_string(int code) {
  switch (code) {
    case PAPCOLL_SUCCESS: return "success";
    case PAPCOLL_ERR_ARG: return "invalid argument";
    case PAPCOLL_ERR_ALGORITHM: return "unknown algorithm";
    case PAPCOLL_ERR_OP: return "operation not supported by the algorithm";
    case PAPCOLL_ERR_ARRIVALS: return "invalid arrival times";
    case PAPCOLL_ERR_MPI: return "MPI call failed";
    case PAPCOLL_ERR_INTERNAL: return "internal error";
    case PAPCOLL_ERR_THREAD: return "MPI_THREAD_MULTIPLE needed but not provided";
    case PAPCOLL_ERR_MODEL: return "invalid link model";
    case PAPCOLL_ERR_PEER: return "another rank erred in this call";
  }
  return "unknown error code";
}
