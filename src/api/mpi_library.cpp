#include "api/mpi_library.hpp"
#include "error/hot_path.hpp"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#ifdef PAPCOLL_SMPI
#include <xbt/config.hpp>
#endif

namespace papcoll {
namespace {

MpiLibrary detect_mpi_library() {
  if (const char* env = std::getenv("PAPCOLL_LIBRARY"); env != nullptr && *env != '\0') {
    MpiLibrary l = MpiLibrary::generic;
    if (parse_mpi_library(env, &l)) return l;
    std::fprintf(stderr,
                 "papcoll: PAPCOLL_LIBRARY=%s is not one of generic, open-mpi, ompi, mpich, "
                 "smpi-ompi, smpi-mpich; ignored\n",
                 env);
  }
#ifdef PAPCOLL_SMPI
  const std::string selector = simgrid::config::get_value<std::string>("smpi/coll-selector");
  if (selector == "ompi") return MpiLibrary::smpi_ompi;
  if (selector == "mpich") return MpiLibrary::smpi_mpich;
  return MpiLibrary::generic;
#else
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  if (MPI_Get_library_version(version, &length) != MPI_SUCCESS) return MpiLibrary::generic;
  return mpi_library_from_version(std::string(version, static_cast<size_t>(length)));
#endif
}

}  // namespace

PAPCOLL_HOT MpiLibrary running_mpi_library() {
  static const MpiLibrary library = detect_mpi_library();
  return library;
}

}  // namespace papcoll
