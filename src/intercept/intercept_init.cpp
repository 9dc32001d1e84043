// MPI_Init and MPI_Init_thread under the interposition library: with PAPCOLL_TIMEOUT set, the
// watchdog's thread reads the call board of a communicator that spans nodes with MPI_Rget, which
// needs MPI_THREAD_MULTIPLE (observe/watchdog.hpp); the library then asks for it. When the
// launcher says every process is on one node (Open MPI: OMPI_COMM_WORLD_LOCAL_SIZE equal to
// OMPI_COMM_WORLD_SIZE; MPICH's Hydra: MPI_LOCALNRANKS equal to PMI_SIZE) the boards are in
// shared memory, the thread calls no MPI function, and the program's own level is kept (a
// higher level can slow the MPI library's small messages).
#include <mpi.h>

#include <cstdlib>
#include <cstring>

#include "observe/observe_config.hpp"

namespace {

bool env_equal(const char* a, const char* b) {
  const char* x = std::getenv(a);
  const char* y = std::getenv(b);
  return x != nullptr && y != nullptr && *x != '\0' && std::strcmp(x, y) == 0;
}

bool watchdog_needs_multiple() {
  // Only when PAPCOLL_TIMEOUT is set: the default timeout never changes the program's thread level
  // (without MPI_THREAD_MULTIPLE the line then says the other nodes' slots are not readable).
  if (!papcoll::observe::config().timeout_given) return false;
  const bool one_node = env_equal("OMPI_COMM_WORLD_LOCAL_SIZE", "OMPI_COMM_WORLD_SIZE") ||
                        env_equal("MPI_LOCALNRANKS", "PMI_SIZE");
  return !one_node || !papcoll::observe::config().board_shared;
}

}  // namespace

extern "C" {

int MPI_Init(int* argc, char*** argv) {
  if (watchdog_needs_multiple()) {
    int provided = MPI_THREAD_SINGLE;
    return PMPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
  }
  return PMPI_Init(argc, argv);
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  if (watchdog_needs_multiple() && required < MPI_THREAD_MULTIPLE) required = MPI_THREAD_MULTIPLE;
  return PMPI_Init_thread(argc, argv, required, provided);
}

}  // extern "C"
