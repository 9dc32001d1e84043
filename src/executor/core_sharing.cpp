#include "executor/core_sharing.hpp"

#include <sched.h>

#include <cstdlib>
#include <cstring>
#include <thread>

namespace papcoll {
namespace {

int usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return CPU_COUNT(&set);
  return static_cast<int>(std::thread::hardware_concurrency());
}

// PAPCOLL_CORES_SHARED=0|1 overrides the local rule (tests run "as if each rank had its own
// core" on a small machine, docs/circulant.md); anything else: the rule.
int local_override() {
  const char* v = std::getenv("PAPCOLL_CORES_SHARED");
  if (v == nullptr) return -1;
  if (std::strcmp(v, "0") == 0) return 0;
  if (std::strcmp(v, "1") == 0) return 1;
  return -1;
}

}  // namespace

MpiStatus detect_cores_shared(MPI_Comm comm, int ranks_on_node, bool* out) {
  *out = false;
#ifdef PAPCOLL_SMPI
  (void)comm;
  (void)ranks_on_node;
  return {};
#else
  const int forced = local_override();
  int local = forced >= 0 ? forced : (node_oversubscribed(ranks_on_node, usable_cpus()) ? 1 : 0);
  int any = 0;
  PAPCOLL_MPI_TRY(MPI_Allreduce(&local, &any, 1, MPI_INT, MPI_LOR, comm), "MPI_Allreduce");
  *out = any != 0;
  return {};
#endif
}

}  // namespace papcoll
