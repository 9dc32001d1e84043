// papcoll_bcast: argument checks, algorithm choice, then the executor's broadcast wrapper. The
// checks shared by every collective, and their order, are in collective_call.hpp.
//
// "auto" is the circulant broadcast (Traff 2023, Algorithm 1) with the block count of the cost
// model (registry.cpp, pipeline_blocks): under the Hockney model it is never slower than the
// binomial tree, which is its own n = 1 case, and its n adapts to the message size.
#include <string>
#include <vector>

#include "api/collective_call.hpp"
#include "api/schedule_source.hpp"
#include "executor/executor_vcollectives.hpp"

namespace papcoll {
namespace {

constexpr const char* kWho = "papcoll_bcast";

int bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
          const papcoll_options* user_opt, double entry_time) {
  CollectiveCall call(kWho, Collective::bcast);
  if (count < 0) return call.arg_error("count is negative (" + std::to_string(count) + ")");
  if (int rc = call.check_options_and_comm(user_opt, comm); rc != PAPCOLL_SUCCESS) return rc;
  DatatypeLayout layout;
  if (int rc = call.check_datatype(datatype, "datatype", &layout); rc != PAPCOLL_SUCCESS) return rc;
  if (int rc = call.check_root(root); rc != PAPCOLL_SUCCESS) return rc;
  if (count > 0 && buffer == nullptr) return call.local_arg_error("buffer is NULL");

  if (int rc = call.enter_monitor(comm, entry_time); rc != PAPCOLL_SUCCESS) return rc;
  if (count == 0 || layout.size == 0) return PAPCOLL_SUCCESS;
  if (int rc = call.open_context(comm); rc != PAPCOLL_SUCCESS) return rc;
  CommContext& ctx = call.context();
  // No broadcast or all-gatherv algorithm reads arrival times yet, so none are agreed on.

  const AlgorithmInfo* algo = call.selection().is_auto ? choose_bcast(GeneratorInput{})
                                                       : call.selection().algo;
  CollectiveCall::record_algorithm(algo);
  if (algo == nullptr) {
    const int rc = MPI_Bcast(buffer, count, datatype, root, ctx.comm);
    return rc == MPI_SUCCESS ? PAPCOLL_SUCCESS : call.mpi_error({rc, "MPI_Bcast"});
  }
  if (call.p() == 1) return PAPCOLL_SUCCESS;  // the root's buffer is already the result

  GeneratorInput in;
  in.p = call.p();
  in.root = root;
  in.cost = call.cost();
  in.bytes = static_cast<double>(count) * layout.size;
  in.blocks = call.block_count(*algo, in, count);
  std::shared_ptr<const RankSchedule> schedule;
  if (int rc = obtain_schedule(ctx, *algo, in, kWho, &schedule); rc != PAPCOLL_SUCCESS) return rc;

  const MpiStatus s =
      execute_bcast(*schedule, in.blocks, buffer, count, layout, ctx.comm, ctx.scratch);
  return s.ok() ? PAPCOLL_SUCCESS : call.mpi_error(s);
}

}  // namespace
}  // namespace papcoll

extern "C" int papcoll_bcast(void* buffer, int count, MPI_Datatype datatype, int root,
                             MPI_Comm comm, const papcoll_options* opt) {
  const double entry_time = papcoll::prediction::steady_seconds();
  return papcoll::guarded_call(papcoll::kWho, [&] {
    return papcoll::bcast(buffer, count, datatype, root, comm, opt, entry_time);
  });
}
