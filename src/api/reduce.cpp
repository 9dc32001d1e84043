// papcoll_reduce: argument checks, algorithm choice, then the executor's reduce wrapper.
//
// The same structure as papcoll_allreduce (allreduce.cpp): every check that can fail on one rank
// only happens before any communication; checks of agreed data (arrival times) give the same
// answer on every rank. What differs: a root (validated against the communicator size, part of
// the schedule cache key), buffers that matter only at the root, MPI_IN_PLACE only at the root,
// and a work buffer from the communicator's context at the other ranks.
#include <algorithm>
#include <cmath>
#include <limits>
#include <new>
#include <string>
#include <vector>

#include "api/arrivals.hpp"
#include "api/error.hpp"
#include "api/schedule_source.hpp"
#include "api/selection.hpp"
#include "executor/comm_context.hpp"
#include "executor/executor_reduce.hpp"
#include "papcoll/papcoll.h"
#include "prediction/monitor.hpp"

namespace papcoll {
namespace {

constexpr const char* kWho = "papcoll_reduce";

// Clairvoyant splits arrivals into whole rounds of d and refuses more than about 1e15 of them;
// far before that the schedule is one process at a time anyway. A coarser d keeps every
// (agreed) input valid and changes no decision that matters.
constexpr double kMaxRoundsOfSpread = 1e12;

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

// Ends a monitor's call on every path out of reduce once its entry succeeded.
struct MonitorCall {
  prediction::Monitor* monitor = nullptr;
  ~MonitorCall() {
    if (monitor != nullptr) monitor->exit_call();
  }
};

// "auto" for reduce (docs/algorithms.md, "Reduce: auto"):
//  - a non-commutative op: MPI_Reduce (every schedule reorders the reduction);
//  - no arrival pattern, or a predicted imbalance factor (largest arrival difference over the time
//    of one whole-buffer message, alpha + beta * bytes) of at most 1: binomial, the tree with
//    ceil(log2 p) rounds, which is what MPI libraries use for small and medium messages;
//  - a larger imbalance: Clairvoyant, whose schedule is built from the arrival times (early ranks
//    reduce among themselves while the late ones compute). With a spread of less than one
//    message time there is nothing to hide and its segmenting only adds latency.
const AlgorithmInfo* choose_reduce(bool commutative, const std::vector<double>& arrivals,
                                   const CostParams& cost, double bytes) {
  if (!commutative) return nullptr;
  const AlgorithmInfo* binomial = find_algorithm(Collective::reduce, "binomial");
  const AlgorithmInfo* clairvoyant = find_algorithm(Collective::reduce, "clairvoyant");
  if (arrivals.empty() || clairvoyant == nullptr) return binomial;
  return imbalance_factor(arrivals, cost, bytes) > 1.0 ? clairvoyant : binomial;
}

int native_reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  int root, MPI_Comm comm) {
  const int rc = MPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
  return rc == MPI_SUCCESS ? PAPCOLL_SUCCESS : mpi_error({rc, "MPI_Reduce"});
}

int reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
           int root, MPI_Comm comm, const papcoll_options* user_opt, double entry_time) {
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
  if (opt.blocks < 0) return arg_error("blocks is negative (" + std::to_string(opt.blocks) + ")");
  CostParams cost;
  if (!cost_params(opt, &cost)) return arg_error("alpha, beta or gamma is not finite");
  prediction::Monitor* monitor = nullptr;
  if (opt.monitor != nullptr) {
    monitor = prediction::monitor_from_handle(opt.monitor);
    if (monitor == nullptr) return arg_error("options->monitor is not a monitor (freed?)");
  }
  Selection sel;
  if (!resolve_algorithm(Collective::reduce, opt.algorithm, &sel))
    return fail(PAPCOLL_ERR_ALGORITHM,
                std::string(kWho) + ": unknown algorithm '" + opt.algorithm +
                    "'; valid: " + algorithm_names(Collective::reduce, ", "));

  int inter = 0, p = 1, rank = 0, commutative = 1;
  if (int rc = MPI_Comm_test_inter(comm, &inter); rc != MPI_SUCCESS)
    return mpi_error({rc, "MPI_Comm_test_inter"});
  if (inter) return arg_error("intercommunicators are not supported");
  if (int rc = MPI_Comm_size(comm, &p); rc != MPI_SUCCESS) return mpi_error({rc, "MPI_Comm_size"});
  if (int rc = MPI_Comm_rank(comm, &rank); rc != MPI_SUCCESS)
    return mpi_error({rc, "MPI_Comm_rank"});
  if (root < 0 || root >= p)
    return arg_error("root " + std::to_string(root) + " is out of range for " +
                     std::to_string(p) + " ranks");
  const bool is_root = rank == root;
  if (!is_root && sendbuf == MPI_IN_PLACE)
    return arg_error("MPI_IN_PLACE is only allowed at the root");
  if (count > 0 && sendbuf == nullptr)
    return arg_error(is_root ? "sendbuf is NULL (use MPI_IN_PLACE)" : "sendbuf is NULL");
  if (count > 0 && is_root && recvbuf == nullptr) return arg_error("recvbuf is NULL at the root");
  if (int rc = MPI_Op_commutative(op, &commutative); rc != MPI_SUCCESS)
    return mpi_error({rc, "MPI_Op_commutative"});
  if (sel.algo != nullptr && sel.algo->reorders_reduction && !commutative)
    return fail(PAPCOLL_ERR_OP, std::string(kWho) + ": algorithm '" + sel.algo->name +
                                    "' reorders the reduction and needs a commutative op");
  DatatypeLayout layout;
  if (MpiStatus s = query_layout(datatype, &layout); !s.ok()) return mpi_error(s);
  if (layout.size > 0 && layout.extent <= 0)
    return arg_error("datatypes with an extent <= 0 are not supported");

  // One monitor step per call that passes the checks, even with nothing to send (as allreduce).
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
      sel.is_auto ? choose_reduce(commutative != 0, arrivals, cost, bytes) : sel.algo;
  if (algo == nullptr)
    return native_reduce(sendbuf, recvbuf, count, datatype, op, root, ctx->comm);

  if (p == 1) {
    if (sendbuf == MPI_IN_PLACE) return PAPCOLL_SUCCESS;
    const MpiStatus s = copy_elements(recvbuf, sendbuf, count, layout, ctx->comm);
    return s.ok() ? PAPCOLL_SUCCESS : mpi_error(s);
  }

  GeneratorInput in;
  in.p = p;
  in.root = root;
  // More blocks than elements would only add empty messages (and Clairvoyant rounds).
  in.blocks = std::max(1, std::min(opt.blocks > 0 ? opt.blocks : algo->default_blocks(p), count));
  if (algo->uses_arrivals) in.arrivals = std::move(arrivals);
  in.cost = cost;
  in.bytes = bytes;
  // Clairvoyant's round time d: sending and reducing one segment under the cost model
  // (alpha + (beta + gamma) * bytes / blocks), in seconds like the arrivals.
  in.round_time = block_round_time(in);
  if (!in.arrivals.empty()) {
    const auto [lo, hi] = std::minmax_element(in.arrivals.begin(), in.arrivals.end());
    in.round_time = std::max(in.round_time, (*hi - *lo) / kMaxRoundsOfSpread);
  }
  std::shared_ptr<const RankSchedule> schedule;
  if (int rc = obtain_schedule(*ctx, *algo, in, kWho, &schedule); rc != PAPCOLL_SUCCESS) return rc;

  const MpiStatus s = execute_reduce(*schedule, in.blocks, ctx->rank, root, sendbuf, recvbuf,
                                     count, layout, op, ctx->comm, ctx->scratch, ctx->work);
  return s.ok() ? PAPCOLL_SUCCESS : mpi_error(s);
}

}  // namespace
}  // namespace papcoll

extern "C" int papcoll_reduce(const void* sendbuf, void* recvbuf, int count,
                              MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                              const papcoll_options* opt) {
  // The arrival time, for the monitor's history, before anything else.
  const double entry_time = papcoll::prediction::steady_seconds();
  // Nothing may escape into C callers; an exception here is a resource failure or a bug.
  try {
    return papcoll::reduce(sendbuf, recvbuf, count, datatype, op, root, comm, opt, entry_time);
  } catch (const std::bad_alloc&) {
    return papcoll::fail(PAPCOLL_ERR_INTERNAL, "papcoll_reduce: out of memory");
  } catch (const std::exception& e) {
    return papcoll::fail(PAPCOLL_ERR_INTERNAL, std::string("papcoll_reduce: ") + e.what());
  } catch (...) {
    return papcoll::fail(PAPCOLL_ERR_INTERNAL, "papcoll_reduce: unknown exception");
  }
}
