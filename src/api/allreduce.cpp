// papcoll_allreduce: argument checks, algorithm choice, then the executor. The checks shared by
// every collective, and their order, are in collective_call.hpp.
#include <string>
#include <vector>

#include "api/collective_call.hpp"
#include "api/schedule_source.hpp"
#include "executor/executor.hpp"

namespace papcoll {
namespace {

constexpr const char* kWho = "papcoll_allreduce";

int allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, const papcoll_options* user_opt, double entry_time) {
  CollectiveCall call(kWho, Collective::allreduce);
  if (count < 0) return call.arg_error("count is negative (" + std::to_string(count) + ")");
  if (int rc = call.check_options_and_comm(user_opt, comm); rc != PAPCOLL_SUCCESS) return rc;
  DatatypeLayout layout;
  if (int rc = call.check_datatype(datatype, "datatype", &layout); rc != PAPCOLL_SUCCESS) return rc;
  if (int rc = call.check_op(op); rc != PAPCOLL_SUCCESS) return rc;
  if (count > 0 && recvbuf == nullptr) return call.local_arg_error("recvbuf is NULL");
  if (count > 0 && sendbuf == nullptr)
    return call.local_arg_error("sendbuf is NULL (use MPI_IN_PLACE)");

  if (int rc = call.enter_monitor(comm, entry_time); rc != PAPCOLL_SUCCESS) return rc;
  if (count == 0 || layout.size == 0) return PAPCOLL_SUCCESS;  // same on every rank: no messages
  if (int rc = call.open_context(comm); rc != PAPCOLL_SUCCESS) return rc;
  CommContext& ctx = call.context();
  std::vector<double> arrivals;
  if (int rc = call.arrivals(&arrivals); rc != PAPCOLL_SUCCESS) return rc;

  GeneratorInput in;
  in.p = call.p();
  in.cost = call.cost();
  in.bytes = static_cast<double>(count) * layout.size;
  const PrepareInput prepare = [&](const AlgorithmInfo& a, GeneratorInput* g) {
    g->blocks = call.block_count(a, *g, count);
    if (!a.uses_arrivals) g->arrivals.clear();
  };
  const AlgorithmInfo* algo = call.selection().algo;
  if (call.selection().is_auto) {
    in.arrivals = arrivals;
    algo = choose_allreduce(count, call.commutative(), in, prepare);
  }
  CollectiveCall::record_algorithm(algo);
  if (algo == nullptr) {
    const int rc = MPI_Allreduce(sendbuf, recvbuf, count, datatype, op, ctx.comm);
    return rc == MPI_SUCCESS ? PAPCOLL_SUCCESS : call.mpi_error({rc, "MPI_Allreduce"});
  }
  if (call.p() == 1) {
    if (sendbuf == MPI_IN_PLACE) return PAPCOLL_SUCCESS;
    const MpiStatus s = copy_elements(recvbuf, sendbuf, count, layout, ctx.comm);
    return s.ok() ? PAPCOLL_SUCCESS : call.mpi_error(s);
  }

  in.arrivals = std::move(arrivals);
  prepare(*algo, &in);
  std::shared_ptr<const RankSchedule> schedule;
  if (int rc = obtain_schedule(ctx, *algo, in, kWho, &schedule); rc != PAPCOLL_SUCCESS) return rc;

  const MpiStatus s = execute_allreduce(*schedule, in.blocks, sendbuf, recvbuf, count, layout, op,
                                        ctx.comm, ctx.scratch);
  return s.ok() ? PAPCOLL_SUCCESS : call.mpi_error(s);
}

}  // namespace
}  // namespace papcoll

extern "C" int papcoll_allreduce(const void* sendbuf, void* recvbuf, int count,
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                 const papcoll_options* opt) {
  // The arrival time, for the monitor's history, before anything else.
  const double entry_time = papcoll::prediction::steady_seconds();
  return papcoll::guarded_call(papcoll::kWho, [&] {
    return papcoll::allreduce(sendbuf, recvbuf, count, datatype, op, comm, opt, entry_time);
  });
}
