#include "executor/core_sharing.hpp"

#include <sched.h>

#include <thread>

namespace papcoll {
namespace {

int usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return CPU_COUNT(&set);
  return static_cast<int>(std::thread::hardware_concurrency());
}

}  // namespace

MpiStatus detect_cores_shared(MPI_Comm comm, bool* out) {
  *out = false;
#ifdef PAPCOLL_SMPI
  (void)comm;
  return {};
#else
  MPI_Comm node = MPI_COMM_NULL;
  PAPCOLL_MPI_TRY(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
                  "MPI_Comm_split_type");
  int on_node = 1;
  const int rc = MPI_Comm_size(node, &on_node);
  MPI_Comm_free(&node);
  PAPCOLL_MPI_TRY(rc, "MPI_Comm_size");
  int local = node_oversubscribed(on_node, usable_cpus()) ? 1 : 0, any = 0;
  PAPCOLL_MPI_TRY(MPI_Allreduce(&local, &any, 1, MPI_INT, MPI_LOR, comm), "MPI_Allreduce");
  *out = any != 0;
  return {};
#endif
}

}  // namespace papcoll
