#include "api/collective_call.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "api/arrivals.hpp"
#include "api/options.hpp"

namespace papcoll {
namespace {
thread_local const char* t_last_algorithm = "";
}  // namespace

void CollectiveCall::record_algorithm(const AlgorithmInfo* algo) {
  t_last_algorithm = algo != nullptr ? algo->name : "native";
}

CollectiveCall::~CollectiveCall() {
  if (in_monitor_call_) monitor_->exit_call();
}

int CollectiveCall::arg_error(const std::string& what) const {
  return fail(PAPCOLL_ERR_ARG, std::string(who_) + ": " + what);
}

int CollectiveCall::local_arg_error(const std::string& what) const {
  return fail_local(PAPCOLL_ERR_ARG, std::string(who_) + ": " + what);
}

int CollectiveCall::mpi_error(const MpiStatus& s) const {
  return fail(PAPCOLL_ERR_MPI, std::string(who_) + ": " + describe(s));
}

int ArgProblem::report(const CollectiveCall& call) const {
  return fail(code, std::string(call.who()) + ": " + what);
}

int ArgProblem::report_local(const CollectiveCall& call) const {
  return fail_local(code, std::string(call.who()) + ": " + what);
}

int CollectiveCall::check_comm(MPI_Comm comm) {
  t_last_algorithm = "";
  if (comm == MPI_COMM_NULL) return arg_error("comm is MPI_COMM_NULL");
  int inter = 0;
  if (int rc = MPI_Comm_test_inter(comm, &inter); rc != MPI_SUCCESS)
    return mpi_error({rc, "MPI_Comm_test_inter"});
  if (inter) return arg_error("intercommunicators are not supported");
  if (int rc = MPI_Comm_size(comm, &p_); rc != MPI_SUCCESS) return mpi_error({rc, "MPI_Comm_size"});
  if (int rc = MPI_Comm_rank(comm, &rank_); rc != MPI_SUCCESS)
    return mpi_error({rc, "MPI_Comm_rank"});
  return PAPCOLL_SUCCESS;
}

int CollectiveCall::check_options(const papcoll_options* user_opt) {
  if (std::string error; !read_user_options(user_opt, &opt_, &error)) return arg_error(error);
  if (opt_.blocks < 0) return arg_error("blocks is negative (" + std::to_string(opt_.blocks) + ")");
  // Hockney parameters: <= 0 means the default, anything not finite is a mistake.
  for (auto [given, dst] : {std::pair{opt_.alpha, &cost_.alpha}, std::pair{opt_.beta, &cost_.beta},
                            std::pair{opt_.gamma, &cost_.gamma}}) {
    if (!std::isfinite(given)) return arg_error("alpha, beta or gamma is not finite");
    if (given > 0) *dst = given;
  }
  if (opt_.monitor != nullptr) {
    std::string why;
    monitor_ = prediction::monitor_from_handle(opt_.monitor, &why);
    if (monitor_ == nullptr) return arg_error("options->monitor: " + why);
  }
  if (!resolve_algorithm(collective_, opt_.algorithm, &sel_))
    return fail(PAPCOLL_ERR_ALGORITHM, std::string(who_) + ": unknown algorithm '" +
                                           opt_.algorithm + "'; valid: " +
                                           algorithm_names(collective_, ", "));
  return PAPCOLL_SUCCESS;
}

int CollectiveCall::check_datatype(MPI_Datatype type, const char* what,
                                   DatatypeLayout* out) const {
  std::string why;
  const int code = datatype_problem(type, what, out, &why);
  return code == PAPCOLL_SUCCESS ? code : fail(code, std::string(who_) + ": " + why);
}

int CollectiveCall::datatype_problem(MPI_Datatype type, const char* what, DatatypeLayout* out,
                                     std::string* why) const {
  if (type == MPI_DATATYPE_NULL) {
    *why = std::string(what) + " is MPI_DATATYPE_NULL";
    return PAPCOLL_ERR_ARG;
  }
  if (MpiStatus s = query_layout(type, out); !s.ok()) {
    *why = describe(s);
    return PAPCOLL_ERR_MPI;
  }
  if (out->size > 0 && out->extent <= 0) {
    *why = "datatypes with an extent <= 0 are not supported";
    return PAPCOLL_ERR_ARG;
  }
  return PAPCOLL_SUCCESS;
}

ArgProblem CollectiveCall::root_problem(int root) const {
  ArgProblem pr;
  if (root < 0 || root >= p_)
    pr.note(PAPCOLL_ERR_ARG, "root " + std::to_string(root) + " is out of range for " +
                                 std::to_string(p_) + " ranks",
            false);
  return pr;
}

ArgProblem CollectiveCall::op_problem(MPI_Op op) {
  ArgProblem pr;
  // No stand-in op exists: every papcoll schedule combines at every rank or may, and whether the
  // others refuse a non-commutative op is unknown here (docs/errors.md).
  if (op == MPI_OP_NULL) {
    pr.note(PAPCOLL_ERR_ARG, "op is MPI_OP_NULL", false);
    return pr;
  }
  int commutative = 1;
  if (int rc = MPI_Op_commutative(op, &commutative); rc != MPI_SUCCESS) {
    pr.note(PAPCOLL_ERR_MPI, describe(MpiStatus{rc, "MPI_Op_commutative"}), false);
    return pr;
  }
  commutative_ = commutative != 0;
  // The same verdict on every rank that passes the same op and algorithm, as MPI requires.
  if (sel_.algo != nullptr && sel_.algo->reorders_reduction && !commutative_)
    pr.note(PAPCOLL_ERR_OP, std::string("algorithm '") + sel_.algo->name +
                                "' reorders the reduction and needs a commutative op",
            false);
  return pr;
}

int CollectiveCall::enter_monitor(MPI_Comm comm, double entry_time) {
  if (monitor_ == nullptr) return PAPCOLL_SUCCESS;
  PAPCOLL_TRY(monitor_->enter_call(comm, entry_time, opt_.monitor_site, who_, &predicted_));
  in_monitor_call_ = true;
  return PAPCOLL_SUCCESS;
}

int CollectiveCall::open_context(MPI_Comm comm) {
  if (MpiStatus s = comm_context(comm, &ctx_); !s.ok()) return mpi_error(s);
  cost_.cores_shared = ctx_->cores_shared;
  return PAPCOLL_SUCCESS;
}

int CollectiveCall::arrivals(std::vector<double>* out) {
  out->clear();
  const bool wanted = sel_.is_auto || (sel_.algo != nullptr && sel_.algo->uses_arrivals);
  if (!wanted) return PAPCOLL_SUCCESS;
  return call_arrivals(opt_, *ctx_, predicted_.arrivals, who_, out);
}

int CollectiveCall::block_count(const AlgorithmInfo& algo, const GeneratorInput& in,
                                long long elements) const {
  const long long wanted = opt_.blocks > 0 ? opt_.blocks : default_block_count(algo, in);
  return static_cast<int>(std::max(1LL, std::min(wanted, elements)));
}

}  // namespace papcoll

extern "C" const char* papcoll_last_algorithm(void) { return papcoll::t_last_algorithm; }
