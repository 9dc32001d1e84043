// papcoll_reduce: argument checks, algorithm choice, then the executor's reduce wrapper.
//
// The shared checks and their order are in collective_call.hpp. What is reduce's own: a root
// (part of the schedule cache key), buffers that matter only at the root, MPI_IN_PLACE only at
// the root, and a work buffer from the communicator's context at the other ranks.
#include <algorithm>
#include <cmath>
#include <limits>
#include <new>
#include <string>
#include <vector>

#include "api/collective_call.hpp"
#include "api/schedule_source.hpp"
#include "executor/executor_reduce.hpp"

namespace papcoll {
namespace {

constexpr const char* kWho = "papcoll_reduce";

// Clairvoyant splits arrivals into whole rounds of d and refuses more than about 1e15 of them;
// far before that the schedule is one process at a time anyway. A coarser d keeps every
// (agreed) input valid and changes no decision that matters.
constexpr double kMaxRoundsOfSpread = 1e12;

int reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
           int root, MPI_Comm comm, const papcoll_options* user_opt, double entry_time) {
  CollectiveCall call(kWho, Collective::reduce);
  if (count < 0) return call.arg_error("count is negative (" + std::to_string(count) + ")");
  if (int rc = call.check_options_and_comm(user_opt, comm); rc != PAPCOLL_SUCCESS) return rc;
  DatatypeLayout layout;
  if (int rc = call.check_datatype(datatype, "datatype", &layout); rc != PAPCOLL_SUCCESS) return rc;
  if (int rc = call.check_op(op); rc != PAPCOLL_SUCCESS) return rc;
  if (int rc = call.check_root(root); rc != PAPCOLL_SUCCESS) return rc;
  const bool is_root = call.rank() == root;
  if (!is_root && sendbuf == MPI_IN_PLACE)
    return call.local_arg_error("MPI_IN_PLACE is only allowed at the root");
  if (count > 0 && sendbuf == nullptr)
    return call.local_arg_error(is_root ? "sendbuf is NULL (use MPI_IN_PLACE)" : "sendbuf is NULL");
  if (count > 0 && is_root && recvbuf == nullptr)
    return call.local_arg_error("recvbuf is NULL at the root");

  // One monitor step per call that passes the checks, even with nothing to send (as allreduce).
  if (int rc = call.enter_monitor(comm, entry_time); rc != PAPCOLL_SUCCESS) return rc;
  if (count == 0 || layout.size == 0) return PAPCOLL_SUCCESS;  // same on every rank: no messages
  if (int rc = call.open_context(comm); rc != PAPCOLL_SUCCESS) return rc;
  CommContext& ctx = call.context();
  std::vector<double> arrivals;
  if (int rc = call.arrivals(&arrivals); rc != PAPCOLL_SUCCESS) return rc;

  GeneratorInput in;
  in.p = call.p();
  in.root = root;
  in.cost = call.cost();
  in.bytes = static_cast<double>(count) * layout.size;
  const PrepareInput prepare = [&](const AlgorithmInfo& a, GeneratorInput* g) {
    // More blocks than elements would only add empty messages (and Clairvoyant rounds).
    g->blocks = call.block_count(a, *g, count);
    if (!a.uses_arrivals) g->arrivals.clear();
    // Clairvoyant's round time d: sending and reducing one segment under the cost model
    // (alpha + (beta + gamma) * bytes / blocks), in seconds like the arrivals.
    g->round_time = block_round_time(*g);
    if (!g->arrivals.empty()) {
      const auto [lo, hi] = std::minmax_element(g->arrivals.begin(), g->arrivals.end());
      g->round_time = std::max(g->round_time, (*hi - *lo) / kMaxRoundsOfSpread);
    }
  };
  const AlgorithmInfo* algo = call.selection().algo;
  if (call.selection().is_auto) {
    in.arrivals = arrivals;
    algo = choose_reduce(call.commutative(), in, prepare);
  }
  CollectiveCall::record_algorithm(algo);
  if (algo == nullptr) {
    const int rc = MPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, ctx.comm);
    return rc == MPI_SUCCESS ? PAPCOLL_SUCCESS : call.mpi_error({rc, "MPI_Reduce"});
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

  const MpiStatus s = execute_reduce(*schedule, in.blocks, ctx.rank, root, sendbuf, recvbuf,
                                     count, layout, op, ctx.comm, ctx.scratch, ctx.work);
  return s.ok() ? PAPCOLL_SUCCESS : call.mpi_error(s);
}

}  // namespace
}  // namespace papcoll

extern "C" int papcoll_reduce(const void* sendbuf, void* recvbuf, int count,
                              MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                              const papcoll_options* opt) {
  // The arrival time, for the monitor's history, before anything else.
  const double entry_time = papcoll::prediction::steady_seconds();
  return papcoll::guarded_call(papcoll::kWho, [&] {
    return papcoll::reduce(sendbuf, recvbuf, count, datatype, op, root, comm, opt, entry_time);
  });
}
