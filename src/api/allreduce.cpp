// papcoll_allreduce: argument checks, algorithm choice, then the executor.
//
// Every check that can fail on one rank only (a bad pointer, say) happens before any
// communication, so a misused call returns instead of blocking inside papcoll; checks of data that
// is only agreed on after communicating (arrival times) give the same answer on every rank.
#include <algorithm>
#include <cmath>
#include <new>
#include <string>
#include <vector>

#include "api/arrivals.hpp"
#include "api/error.hpp"
#include "api/schedule_source.hpp"
#include "api/selection.hpp"
#include "executor/comm_context.hpp"
#include "executor/executor.hpp"
#include "papcoll/papcoll.h"
#include "prediction/monitor.hpp"

namespace papcoll {
namespace {

constexpr const char* kWho = "papcoll_allreduce";

int arg_error(const std::string& what) {
  return fail(PAPCOLL_ERR_ARG, std::string(kWho) + ": " + what);
}

int mpi_error(const MpiStatus& s) {
  return fail(PAPCOLL_ERR_MPI, std::string(kWho) + ": " + describe(s));
}

// Options' Hockney parameters: <= 0 means the default, anything not finite is a mistake.
bool cost_params(const papcoll_options& opt, CostParams* out) {
  CostParams c;
  for (auto [given, dst] : {std::pair{opt.alpha, &c.alpha}, std::pair{opt.beta, &c.beta},
                            std::pair{opt.gamma, &c.gamma}}) {
    if (!std::isfinite(given)) return false;
    if (given > 0) *dst = given;
  }
  *out = c;
  return true;
}

int native_allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                     MPI_Comm comm) {
  const int rc = MPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
  return rc == MPI_SUCCESS ? PAPCOLL_SUCCESS : mpi_error({rc, "MPI_Allreduce"});
}

// Ends a monitor's call on every path out of allreduce once its entry succeeded.
struct MonitorCall {
  prediction::Monitor* monitor = nullptr;
  ~MonitorCall() {
    if (monitor != nullptr) monitor->exit_call();
  }
};

int allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, const papcoll_options* user_opt, double entry_time) {
  papcoll_options opt;
  papcoll_options_init(&opt);
  if (user_opt != nullptr) {
    if (user_opt->version != PAPCOLL_OPTIONS_VERSION)
      return arg_error("options->version is " + std::to_string(user_opt->version) + ", expected " +
                       std::to_string(PAPCOLL_OPTIONS_VERSION) + " (call papcoll_options_init)");
    opt = *user_opt;
  }
  if (count < 0) return arg_error("count is negative (" + std::to_string(count) + ")");
  if (comm == MPI_COMM_NULL) return arg_error("comm is MPI_COMM_NULL");
  if (datatype == MPI_DATATYPE_NULL) return arg_error("datatype is MPI_DATATYPE_NULL");
  if (op == MPI_OP_NULL) return arg_error("op is MPI_OP_NULL");
  if (count > 0 && recvbuf == nullptr) return arg_error("recvbuf is NULL");
  if (count > 0 && sendbuf == nullptr) return arg_error("sendbuf is NULL (use MPI_IN_PLACE)");
  if (opt.blocks < 0) return arg_error("blocks is negative (" + std::to_string(opt.blocks) + ")");
  CostParams cost;
  if (!cost_params(opt, &cost)) return arg_error("alpha, beta or gamma is not finite");
  prediction::Monitor* monitor = nullptr;
  if (opt.monitor != nullptr) {
    monitor = prediction::monitor_from_handle(opt.monitor);
    if (monitor == nullptr) return arg_error("options->monitor is not a monitor (freed?)");
  }
  Selection sel;
  if (!resolve_algorithm(Collective::allreduce, opt.algorithm, &sel))
    return fail(PAPCOLL_ERR_ALGORITHM,
                std::string(kWho) + ": unknown algorithm '" + opt.algorithm +
                    "'; valid: " + algorithm_names(Collective::allreduce, ", "));

  int inter = 0, p = 1, commutative = 1;
  if (int rc = MPI_Comm_test_inter(comm, &inter); rc != MPI_SUCCESS)
    return mpi_error({rc, "MPI_Comm_test_inter"});
  if (inter) return arg_error("intercommunicators are not supported");
  if (int rc = MPI_Comm_size(comm, &p); rc != MPI_SUCCESS) return mpi_error({rc, "MPI_Comm_size"});
  if (int rc = MPI_Op_commutative(op, &commutative); rc != MPI_SUCCESS)
    return mpi_error({rc, "MPI_Op_commutative"});
  if (sel.algo != nullptr && sel.algo->reorders_reduction && !commutative)
    return fail(PAPCOLL_ERR_OP, std::string(kWho) + ": algorithm '" + sel.algo->name +
                                    "' reorders the reduction and needs a commutative op");
  DatatypeLayout layout;
  if (MpiStatus s = query_layout(datatype, &layout); !s.ok()) return mpi_error(s);
  if (layout.size > 0 && layout.extent <= 0)
    return arg_error("datatypes with an extent <= 0 are not supported");

  // Every call that names a monitor and passes the checks above is one step of the monitor, even
  // one with nothing to send, so the monitor's call numbers stay the same on every rank. This is
  // the first communication of the call (before the first use of the communicator's context,
  // which may duplicate it), in the same place on every rank.
  prediction::CallPattern predicted;
  MonitorCall monitor_call;
  if (monitor != nullptr) {
    if (int rc = monitor->enter_call(comm, entry_time, opt.monitor_site, kWho, &predicted);
        rc != PAPCOLL_SUCCESS)
      return rc;
    monitor_call.monitor = monitor;
  }
  if (count == 0 || layout.size == 0) return PAPCOLL_SUCCESS;  // same on every rank: no messages

  CommContext* ctx = nullptr;
  if (MpiStatus s = comm_context(comm, &ctx); !s.ok()) return mpi_error(s);

  const bool wants_arrivals = sel.is_auto || (sel.algo != nullptr && sel.algo->uses_arrivals);
  std::vector<double> arrivals;
  if (wants_arrivals)
    if (int rc = call_arrivals(opt, *ctx, predicted.arrivals, kWho, &arrivals);
        rc != PAPCOLL_SUCCESS)
      return rc;

  const double bytes = static_cast<double>(count) * layout.size;
  const AlgorithmInfo* algo =
      sel.is_auto ? choose_allreduce(p, count, commutative != 0, arrivals, cost, bytes) : sel.algo;
  if (algo == nullptr) return native_allreduce(sendbuf, recvbuf, count, datatype, op, ctx->comm);

  if (p == 1) {
    if (sendbuf == MPI_IN_PLACE) return PAPCOLL_SUCCESS;
    const MpiStatus s = copy_elements(recvbuf, sendbuf, count, layout, ctx->comm);
    return s.ok() ? PAPCOLL_SUCCESS : mpi_error(s);
  }

  GeneratorInput in;
  in.p = p;
  // More blocks than elements would only add empty messages.
  in.blocks = std::max(1, std::min(opt.blocks > 0 ? opt.blocks : algo->default_blocks(p), count));
  if (algo->uses_arrivals) in.arrivals = std::move(arrivals);
  in.cost = cost;
  in.bytes = bytes;
  std::shared_ptr<const RankSchedule> schedule;
  if (int rc = obtain_schedule(*ctx, *algo, in, kWho, &schedule); rc != PAPCOLL_SUCCESS) return rc;

  const MpiStatus s = execute_allreduce(*schedule, in.blocks, sendbuf, recvbuf, count, layout, op,
                                        ctx->comm, ctx->scratch);
  return s.ok() ? PAPCOLL_SUCCESS : mpi_error(s);
}

}  // namespace
}  // namespace papcoll

extern "C" int papcoll_allreduce(const void* sendbuf, void* recvbuf, int count,
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                 const papcoll_options* opt) {
  // The arrival time, for the monitor's history, before anything else.
  const double entry_time = papcoll::prediction::steady_seconds();
  // Nothing may escape into C callers; an exception here is a resource failure or a bug.
  try {
    return papcoll::allreduce(sendbuf, recvbuf, count, datatype, op, comm, opt, entry_time);
  } catch (const std::bad_alloc&) {
    return papcoll::fail(PAPCOLL_ERR_INTERNAL, "papcoll_allreduce: out of memory");
  } catch (const std::exception& e) {
    return papcoll::fail(PAPCOLL_ERR_INTERNAL, std::string("papcoll_allreduce: ") + e.what());
  } catch (...) {
    return papcoll::fail(PAPCOLL_ERR_INTERNAL, "papcoll_allreduce: unknown exception");
  }
}
