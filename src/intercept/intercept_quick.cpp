#include "intercept/intercept_quick.hpp"

#include <climits>

#include "api/call_check.hpp"
#include "observe/observe_config.hpp"

namespace papcoll::intercept {

PAPCOLL_INTERCEPT_LOCAL long long g_quick_below[static_cast<int>(Operation::count)] = {};
PAPCOLL_INTERCEPT_LOCAL bool g_quick_bcast_auto = false;
PAPCOLL_INTERCEPT_LOCAL bool g_observing = false;
PAPCOLL_INTERCEPT_LOCAL std::atomic<unsigned long> g_type_frees{0};

long long type_size_slow(MPI_Datatype type) {
  int size = 0;
  if (type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS) return -1;
  t_type_size = TypeSizeCache{type, size, g_type_frees.load(std::memory_order_acquire)};
  return size;
}

namespace {

// At load (after libpapcoll's own initialisation, which it depends on): the environment is
// mpirun's, the same on every rank.
__attribute__((constructor)) void decide_quick_paths() {
  g_observing = observe::g_watching_native;
  const Config& cfg = config();
  if (cfg.verbose || check_mode()) return;
  for (int i = 0; i < static_cast<int>(Operation::count); ++i) {
    const auto op = static_cast<Operation>(i);
    const OperationChoice& choice = cfg[op];
    if (choice.native) {
      g_quick_below[i] = LLONG_MAX;
    } else if (choice.is_auto && (op == Operation::allreduce || op == Operation::reduce)) {
      g_quick_below[i] = cfg.history ? cfg.history_min_bytes : LLONG_MAX;
    } else if (choice.is_auto && op == Operation::bcast) {
      g_quick_bcast_auto = true;
    }
  }
}

}  // namespace
}  // namespace papcoll::intercept

// Before and after: a size cached while the type is being freed is stale either way.
extern "C" int MPI_Type_free(MPI_Datatype* type) {
  papcoll::intercept::g_type_frees.fetch_add(1, std::memory_order_acq_rel);
  const int rc = PMPI_Type_free(type);
  papcoll::intercept::g_type_frees.fetch_add(1, std::memory_order_acq_rel);
  return rc;
}
