#include "api/collective_call.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include "api/arrivals.hpp"
#include "api/options.hpp"
#include "calibration/calibrate.hpp"
#include "error/hot_path.hpp"
#include "executor/node_exchange.hpp"
#include "executor/step_overhead.hpp"

namespace papcoll {
namespace {
thread_local const char* t_last_algorithm = "";

// papcoll_last_network's record of the calling thread's last call.
struct LastNetwork {
  bool valid = false;
  NetworkParams comm;
  CostParams used;
  NetworkSource source = NetworkSource::defaults;
};
thread_local LastNetwork t_last_network;
}  // namespace

PAPCOLL_HOT void CollectiveCall::record_algorithm(const AlgorithmInfo* algo) {
  t_last_algorithm = algo != nullptr ? algo->name : "native";
}

PAPCOLL_HOT void CollectiveCall::record_network(const NetworkParams& comm_params,
                                                const CostParams& used, NetworkSource source) {
  t_last_network = LastNetwork{true, comm_params, used, source};
}

PAPCOLL_HOT GammaClass gamma_class_of(MPI_Datatype t) {
  // The common types first: every reduction call asks (about 20 handle compares for a double).
  if (t == MPI_DOUBLE) return GammaClass::float64;
  if (t == MPI_FLOAT) return GammaClass::float32;
  if (t == MPI_INT || t == MPI_LONG || t == MPI_LONG_LONG) return GammaClass::integer;
  for (MPI_Datatype i : {MPI_INT,           MPI_UNSIGNED,       MPI_LONG,
                         MPI_UNSIGNED_LONG, MPI_LONG_LONG,      MPI_UNSIGNED_LONG_LONG,
                         MPI_SHORT,         MPI_UNSIGNED_SHORT, MPI_CHAR,
                         MPI_SIGNED_CHAR,   MPI_UNSIGNED_CHAR,  MPI_BYTE,
                         MPI_INT8_T,        MPI_INT16_T,        MPI_INT32_T,
                         MPI_INT64_T,       MPI_UINT8_T,        MPI_UINT16_T,
                         MPI_UINT32_T,      MPI_UINT64_T,       MPI_C_BOOL})
    if (t == i) return GammaClass::integer;
  return GammaClass::float64;
}

PAPCOLL_HOT void CollectiveCall::set_reduction_type(MPI_Datatype unit) {
  gamma_class_ = gamma_class_of(unit);
}

PAPCOLL_HOT bool CollectiveCall::reads_network(bool several_per_node) const {
  if (p_ < 2 || (!sel_.is_auto && sel_.algo == nullptr)) return false;
  // "auto" of a reduction without arrival times is the MPI library's collective: no costs read
  // (selection.cpp), so a balanced program's small calls never wait for a measurement; except on
  // nodes of several ranks, where a two-level schedule is costed against the library, and for a
  // reduce from kAutoBalancedReduceMinP ranks on, costed against the library's binomial tree.
  const bool reduction = collective_ == Collective::allreduce || collective_ == Collective::reduce;
  const bool balanced_reduce_costed = collective_ == Collective::reduce &&
                                      p_ >= kAutoBalancedReduceMinP;
  if (reduction && sel_.is_auto && opt_.arrivals == nullptr && monitor_ == nullptr &&
      !several_per_node && !balanced_reduce_costed)
    return false;
  const bool sg = collective_ == Collective::scatterv || collective_ == Collective::gatherv;
  // On nodes of several ranks the links inside a node weigh as much as those between nodes, and
  // options name only the latter: the former are measured (once per communicator).
  return sg || !(alpha_given_ && beta_given_) || several_per_node;
}

PAPCOLL_HOT CollectiveCall::~CollectiveCall() {
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

PAPCOLL_HOT int CollectiveCall::check_comm(MPI_Comm comm) {
  t_last_algorithm = "";
  t_last_network.valid = false;
  if (comm == MPI_COMM_NULL) return arg_error("comm is MPI_COMM_NULL");
  if (const CommContext* known = last_comm_context(comm)) [[likely]] {
    p_ = known->size;  // an intracommunicator's: contexts are made for no other
    rank_ = known->rank;
    return PAPCOLL_SUCCESS;
  }
  int inter = 0;
  if (int rc = MPI_Comm_test_inter(comm, &inter); rc != MPI_SUCCESS)
    return mpi_error({rc, "MPI_Comm_test_inter"});
  if (inter) return arg_error("intercommunicators are not supported");
  if (int rc = MPI_Comm_size(comm, &p_); rc != MPI_SUCCESS) return mpi_error({rc, "MPI_Comm_size"});
  if (int rc = MPI_Comm_rank(comm, &rank_); rc != MPI_SUCCESS)
    return mpi_error({rc, "MPI_Comm_rank"});
  return PAPCOLL_SUCCESS;
}

PAPCOLL_HOT int CollectiveCall::check_options(const papcoll_options* user_opt) {
  if (std::string error; !read_user_options(user_opt, &opt_, &error)) return arg_error(error);
  options_read_ = true;
  // The monitor first: a rank that refuses the call for another option still takes part in the
  // monitor's step (adopt_options).
  if (opt_.monitor != nullptr) {
    std::string why;
    monitor_ = prediction::monitor_for_call(opt_.monitor, &why);
    if (monitor_ == nullptr) return arg_error("options->monitor: " + why);
  }
  if (opt_.blocks < 0) return arg_error("blocks is negative (" + std::to_string(opt_.blocks) + ")");
  // Hockney parameters: <= 0 means the default, anything not finite is a mistake.
  for (auto [given, dst] : {std::pair{opt_.alpha, &cost_.alpha}, std::pair{opt_.beta, &cost_.beta},
                            std::pair{opt_.gamma, &cost_.gamma}}) {
    if (!std::isfinite(given)) return arg_error("alpha, beta or gamma is not finite");
    if (given > 0) *dst = given;
  }
  alpha_given_ = opt_.alpha > 0;
  beta_given_ = opt_.beta > 0;
  gamma_given_ = opt_.gamma > 0;
  if (!resolve_algorithm(collective_, opt_.algorithm, &sel_))
    return fail(PAPCOLL_ERR_ALGORITHM, std::string(who_) + ": unknown algorithm '" +
                                           opt_.algorithm +
                                           "'; valid: " + algorithm_names(collective_, ", "));
  return PAPCOLL_SUCCESS;
}

PAPCOLL_HOT ArgProblem CollectiveCall::arrivals_problem(bool reads_arrivals) {
  ArgProblem pr;
  const bool read = reads_arrivals &&
                    (sel_.is_auto || (sel_.algo != nullptr && sel_.algo->uses_arrivals));
  if (!read || p_ < 2) return pr;
  if (opt_.arrivals == nullptr) {
    // A count without the array: the caller meant to pass one (the others may have).
    if (opt_.arrivals_count != 0)
      pr.note(PAPCOLL_ERR_ARRIVALS,
              "arrivals is NULL but arrivals_count is " + std::to_string(opt_.arrivals_count),
              false);
    return pr;
  }
  if (!opt_.arrivals_agreed) return pr;  // rank 0's travels with its count: checked everywhere
  if (opt_.arrivals_count != 0 && opt_.arrivals_count != p_) {
    pr.note(PAPCOLL_ERR_ARRIVALS,
            "arrivals_count is " + std::to_string(opt_.arrivals_count) +
                " but the communicator has " + std::to_string(p_) + " ranks",
            false);
    return pr;
  }
  for (int i = 0; i < p_; ++i)
    if (!std::isfinite(opt_.arrivals[i])) {
      pr.note(PAPCOLL_ERR_ARRIVALS,
              "arrivals[" + std::to_string(i) + "] is " + std::to_string(opt_.arrivals[i]) +
                  ", not a finite time",
              false);
      break;
    }
  agreed_arrivals_checked_ = pr.ok();
  return pr;
}

bool CollectiveCall::adopt_options(const observe::BoardCall& c, const observe::CallArrays& arrays,
                                   std::string* why) {
  if (!options_read_) {
    papcoll_options_init(&opt_);
    monitor_ = prediction::MonitorLease{};
  }
  Selection sel;
  if (c.algorithm == observe::kAlgorithmAuto) {
    sel.is_auto = true;
    opt_.algorithm = "auto";
  } else if (c.algorithm == observe::kAlgorithmNative) {
    opt_.algorithm = "native";
  } else {
    const std::vector<const AlgorithmInfo*> all = algorithms_for(collective_);
    if (c.algorithm < 0 || c.algorithm >= static_cast<int>(all.size())) {
      *why = "their algorithm is unknown here";
      return false;
    }
    sel.algo = all[static_cast<size_t>(c.algorithm)];
    opt_.algorithm = sel.algo->name;
  }
  sel_ = sel;
  opt_.blocks = std::max(0, c.blocks);
  cost_ = CostParams{};
  opt_.alpha = std::isfinite(c.alpha) ? c.alpha : 0.0;
  opt_.beta = std::isfinite(c.beta) ? c.beta : 0.0;
  opt_.gamma = std::isfinite(c.gamma) ? c.gamma : 0.0;
  if (opt_.alpha > 0) cost_.alpha = opt_.alpha;
  if (opt_.beta > 0) cost_.beta = opt_.beta;
  if (opt_.gamma > 0) cost_.gamma = opt_.gamma;
  alpha_given_ = opt_.alpha > 0;
  beta_given_ = opt_.beta > 0;
  gamma_given_ = opt_.gamma > 0;
  agreed_arrivals_checked_ = false;
  if (c.flags & observe::kCallArrivalsAgreed) {
    if (static_cast<int>(arrays.arrivals.size()) != p_) {
      *why = "their agreed arrival times are not on the board";
      return false;
    }
    adopted_arrivals_ = arrays.arrivals;
    opt_.arrivals = adopted_arrivals_.data();
    opt_.arrivals_count = p_;
    opt_.arrivals_agreed = 1;
  } else if (c.flags & observe::kCallArrivals) {
    // Rank 0's vector is broadcast: this rank's own when it is rank 0 and has one, else zeros
    // (its count travels with it, so every rank checks the same one).
    if (opt_.arrivals == nullptr || opt_.arrivals_agreed) {
      adopted_arrivals_.assign(static_cast<size_t>(p_), 0.0);
      opt_.arrivals = adopted_arrivals_.data();
      opt_.arrivals_count = p_;
    }
    opt_.arrivals_agreed = 0;
  } else {
    opt_.arrivals = nullptr;
    opt_.arrivals_count = 0;
    opt_.arrivals_agreed = 0;
  }
  if (c.flags & observe::kCallMonitor) {
    if (monitor_ == nullptr) {
      *why = "their options name a progress monitor and this rank's none it can use";
      return false;
    }
  } else if (monitor_ != nullptr) {
    monitor_ = prediction::MonitorLease{};
    opt_.monitor = nullptr;
  }
  return true;
}

int CollectiveCall::check_datatype(MPI_Datatype type, const char* what, DatatypeLayout* out) const {
  std::string why;
  const int code = datatype_problem(type, what, out, &why);
  return code == PAPCOLL_SUCCESS ? code : fail(code, std::string(who_) + ": " + why);
}

PAPCOLL_HOT int CollectiveCall::datatype_problem(MPI_Datatype type, const char* what,
                                                 DatatypeLayout* out, std::string* why) const {
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
    pr.note(PAPCOLL_ERR_ARG,
            "root " + std::to_string(root) + " is out of range for " + std::to_string(p_) +
                " ranks",
            false);
  return pr;
}

PAPCOLL_HOT ArgProblem CollectiveCall::op_problem(MPI_Op op) {
  ArgProblem pr;
  // No stand-in op exists: every papcoll schedule combines at every rank or may, and whether the
  // others refuse a non-commutative op is unknown here (docs/errors.md).
  if (op == MPI_OP_NULL) {
    pr.note(PAPCOLL_ERR_ARG, "op is MPI_OP_NULL", false);
    return pr;
  }
  int commutative = 1;
  if (!commutative_predefined_op(op))
    if (int rc = MPI_Op_commutative(op, &commutative); rc != MPI_SUCCESS) {
      pr.note(PAPCOLL_ERR_MPI, describe(MpiStatus{rc, "MPI_Op_commutative"}), false);
      return pr;
    }
  commutative_ = commutative != 0;
  // The same verdict on every rank that passes the same op and algorithm, as MPI requires.
  if (sel_.algo != nullptr && sel_.algo->reorders_reduction && !commutative_)
    pr.note(PAPCOLL_ERR_OP,
            std::string("algorithm '") + sel_.algo->name +
                "' reorders the reduction and needs a commutative op",
            false);
  return pr;
}

PAPCOLL_HOT int CollectiveCall::enter_monitor(MPI_Comm comm, double entry_time) {
  if (monitor_ == nullptr) return PAPCOLL_SUCCESS;
  PAPCOLL_TRY(monitor_->enter_call(comm, entry_time, opt_.monitor_site, who_, &predicted_));
  in_monitor_call_ = true;
  return PAPCOLL_SUCCESS;
}

PAPCOLL_HOT void CollectiveCall::note_algorithm(const AlgorithmInfo* algo) {
  if (in_monitor_call_) monitor_->note_use(algo != nullptr && algo->uses_arrivals);
}

PAPCOLL_HOT int CollectiveCall::open_context(MPI_Comm comm, bool settle_network) {
  if (MpiStatus s = comm_context(comm, &ctx_); !s.ok()) return mpi_error(s);
  cost_.cores_shared = ctx_->cores_shared;
  if (!settle_network) return PAPCOLL_SUCCESS;
  const bool reads = reads_network(ctx_->schedule_nodes != nullptr);
  if (reads && !ctx_->network_known) {  // the same on every rank: settled collectively
    PAPCOLL_TRY(
        calibrate_network(ctx_->comm, *ctx_->nodes, ctx_->nodes_overridden, who_, &ctx_->network));
    ctx_->network_known = true;
  }
  // A call whose options give alpha and beta reads nothing of the communicator's (it may not be
  // settled yet), but papcoll_last_network still reports what it ran with.
  const bool options_only = !reads && alpha_given_ && beta_given_ && p_ >= 2 &&
                            (sel_.is_auto || sel_.algo != nullptr);
  if (!reads && !options_only) return PAPCOLL_SUCCESS;
  const NetworkParams comm_net = ctx_->network_known ? ctx_->network : NetworkParams{};
  const CostParams net = comm_net.in_use(gamma_class_);
  if (!alpha_given_) cost_.alpha = net.alpha;
  if (!beta_given_) cost_.beta = net.beta;
  if (!gamma_given_) cost_.gamma = net.gamma;
  // The options name the links between nodes only: those inside a node stay the communicator's.
  cost_.intra_alpha = net.intra_alpha;
  cost_.intra_beta = net.intra_beta;
  // `auto` weighs papcoll's schedules with what a step of the executor costs beyond the links'
  // latency (step_overhead.hpp), from a ring timed once per communicator, and every schedule's
  // pipeline takes it in its block count (pipeline_blocks), so a row named in the options runs
  // the schedule `auto` costs it with. Not where ranks share cores: a round's time there is the
  // operating system's scheduling, which the block counts already allow for.
  const bool schedule = sel_.is_auto || sel_.algo != nullptr;
  if (schedule && !ctx_->cores_shared) {
    if (!ctx_->ring_round_known) {
      if (MpiStatus s = measure_ring_round(ctx_->comm, ctx_->scratch, &ctx_->ring_round); !s.ok())
        return mpi_error(s);
      ctx_->ring_round_known = true;
      if (ctx_->rank == 0 && calibration_settings().verbose)
        std::fprintf(stderr, "papcoll: a ring round through the executor on %d rank(s): %.3g s\n",
                     p_, ctx_->ring_round);
    }
    cost_.step_overhead = step_overhead_from_round(ctx_->ring_round, cost_);
    // On nodes of several ranks, how a node-wide exchange runs (node_exchange.hpp): the same on
    // every rank. `auto` costs two-level-rsag with it, and that row's plan reads it, so it is
    // measured for `auto` and for a two-level row named in the options.
    const bool exchange = sel_.is_auto || sel_.algo->topology_aware;
    if (exchange && ctx_->schedule_nodes != nullptr && !ctx_->node_exchange_known) {
      if (MpiStatus s = measure_node_exchange(ctx_->comm, *ctx_->schedule_nodes, ctx_->scratch,
                                              &ctx_->node_exchange);
          !s.ok())
        return mpi_error(s);
      ctx_->node_exchange_known = true;
      if (ctx_->rank == 0 && calibration_settings().verbose)
        std::fprintf(stderr, "papcoll: a node-wide exchange on %s: %.3g s + %.3g s/B per piece\n",
                     ctx_->schedule_nodes->describe().c_str(), ctx_->node_exchange.alpha,
                     ctx_->node_exchange.beta);
    }
    if (exchange) {
      cost_.exchange_alpha = ctx_->node_exchange.alpha;
      cost_.exchange_beta = ctx_->node_exchange.beta;
    }
  }
  record_network(comm_net, cost_,
                 alpha_given_ || beta_given_ ? NetworkSource::options : comm_net.source);
  return PAPCOLL_SUCCESS;
}

PAPCOLL_HOT int CollectiveCall::arrivals(std::vector<double>* out) {
  out->clear();
  const bool wanted = sel_.is_auto || (sel_.algo != nullptr && sel_.algo->uses_arrivals);
  if (!wanted) return PAPCOLL_SUCCESS;
  return call_arrivals(opt_, *ctx_, predicted_.arrivals, who_, out, agreed_arrivals_checked_);
}

int CollectiveCall::block_count(const AlgorithmInfo& algo, const GeneratorInput& in,
                                long long elements) const {
  const long long wanted = opt_.blocks > 0 ? opt_.blocks : default_block_count(algo, in);
  return static_cast<int>(std::max(1LL, std::min(wanted, elements)));
}

}  // namespace papcoll

extern "C" const char* papcoll_last_algorithm(void) { return papcoll::t_last_algorithm; }

namespace {

double known_or_zero(double v) { return std::isfinite(v) && v >= 0 ? v : 0.0; }

// The argument check of a versioned out-struct (papcoll_network_info, papcoll_executor_costs):
// PAPCOLL_SUCCESS, or PAPCOLL_ERR_ARG with a message naming the function and its init.
int check_out_struct(const void* out, const char* who, const char* what, int version, int expected,
                     const char* init) {
  if (out == nullptr)
    return papcoll::fail(PAPCOLL_ERR_ARG, std::string(who) + ": " + what + " is NULL");
  if (version != expected)
    return papcoll::fail(PAPCOLL_ERR_ARG, std::string(who) + ": " + what + "->version is " +
                                              std::to_string(version) + ", expected " +
                                              std::to_string(expected) + " (call " + init + ")");
  return PAPCOLL_SUCCESS;
}

}  // namespace

extern "C" void papcoll_network_info_init(papcoll_network_info* info) {
  if (info == nullptr) return;
  *info = papcoll_network_info{};
  info->version = PAPCOLL_NETWORK_INFO_VERSION;
  info->source = PAPCOLL_NET_NONE;
}

extern "C" int papcoll_last_network(papcoll_network_info* info) {
  using papcoll::t_last_network;
  if (const int rc = check_out_struct(info, "papcoll_last_network", "info",
                                      info != nullptr ? info->version : 0,
                                      PAPCOLL_NETWORK_INFO_VERSION, "papcoll_network_info_init");
      rc != PAPCOLL_SUCCESS)
    return rc;
  papcoll_network_info_init(info);
  if (!t_last_network.valid) return PAPCOLL_SUCCESS;
  const papcoll::NetworkParams& n = t_last_network.comm;
  info->source = static_cast<int>(t_last_network.source);
  info->alpha = t_last_network.used.alpha;
  info->beta = t_last_network.used.beta;
  info->gamma = t_last_network.used.gamma;
  info->alpha_intra = known_or_zero(n.intra.alpha);
  info->beta_intra = known_or_zero(n.intra.beta);
  info->alpha_inter = known_or_zero(n.inter.alpha);
  info->beta_inter = known_or_zero(n.inter.beta);
  info->gamma_float = known_or_zero(n.gamma[0]);
  info->gamma_double = known_or_zero(n.gamma[1]);
  info->gamma_int = known_or_zero(n.gamma[2]);
  info->nodes = n.nodes;
  info->calibration_seconds = known_or_zero(n.seconds);
  return PAPCOLL_SUCCESS;
}

extern "C" void papcoll_executor_costs_init(papcoll_executor_costs* costs) {
  if (costs == nullptr) return;
  *costs = papcoll_executor_costs{};
  costs->version = PAPCOLL_EXECUTOR_COSTS_VERSION;
}

extern "C" int papcoll_last_executor_costs(papcoll_executor_costs* costs) {
  using papcoll::t_last_network;
  if (const int rc = check_out_struct(costs, "papcoll_last_executor_costs", "costs",
                                      costs != nullptr ? costs->version : 0,
                                      PAPCOLL_EXECUTOR_COSTS_VERSION,
                                      "papcoll_executor_costs_init");
      rc != PAPCOLL_SUCCESS)
    return rc;
  papcoll_executor_costs_init(costs);
  if (!t_last_network.valid) return PAPCOLL_SUCCESS;
  // The call's cost parameters: set by open_context where it measured them (auto's calls).
  const papcoll::CostParams& used = t_last_network.used;
  costs->step_overhead = known_or_zero(used.step_overhead);
  if (used.exchange_measured()) {
    costs->exchange_alpha = known_or_zero(used.exchange_alpha);
    costs->exchange_beta = known_or_zero(used.exchange_beta);
  }
  return PAPCOLL_SUCCESS;
}
