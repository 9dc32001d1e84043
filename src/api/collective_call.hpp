// The part every collective entry point shares: options, communicator and datatype checks, the
// algorithm name, the monitor's call step, the communicator's context and the agreed arrival
// vector. The order of a call's steps is the driver's (collective_driver.hpp); each collective
// describes only what is its own (its buffer rules, MPI_IN_PLACE, its executor wrapper).
#pragma once

#include <mpi.h>

#include <new>
#include <string>
#include <vector>

#include "error/error.hpp"
#include "error/guarded_call.hpp"
#include "executor/comm_context.hpp"
#include "executor/datatype_layout.hpp"
#include "observe/call_board.hpp"
#include "papcoll/papcoll.h"
#include "prediction/monitor.hpp"
#include "schedule/registry.hpp"
#include "select/selection.hpp"

namespace papcoll {

class CollectiveCall;

// What a rank finds wrong with its own arguments. Most such problems are seen by one rank only,
// so the other ranks go on into the communication: a rank that returned at once would leave them
// waiting forever. Where the rank still knows the call's message pattern (count, datatypes, root,
// op, algorithm are valid; only a buffer is NULL or aliased) it takes part with stand-in data
// and returns the error afterwards (pattern_known); otherwise the driver hands the problem to
// refuse_without_pattern (collective_driver.hpp).
struct ArgProblem {
  int code = PAPCOLL_SUCCESS;
  std::string what;  // without the "<who>: " prefix
  bool pattern_known = true;

  bool ok() const { return code == PAPCOLL_SUCCESS; }
  // Keeps the first problem only: it is the one the caller should fix first.
  void note(int c, std::string w, bool known = true) {
    if (ok()) {
      code = c;
      what = std::move(w);
      pattern_known = known;
    }
  }
  // Fails the call with this problem (papcoll_last_error() = "<who>: <what>").
  int report(const CollectiveCall& call) const;
  // The same for a problem only this rank sees (fail_local, error.hpp).
  int report_local(const CollectiveCall& call) const;
};

class CollectiveCall {
 public:
  CollectiveCall(const char* who, Collective collective) : who_(who), collective_(collective) {}
  CollectiveCall(const CollectiveCall&) = delete;
  CollectiveCall& operator=(const CollectiveCall&) = delete;
  // Ends the monitor's call step on every path out of the call once it was entered.
  ~CollectiveCall();

  // PAPCOLL_ERR_ARG / PAPCOLL_ERR_MPI with "<who>: " in front of the message.
  int arg_error(const std::string& what) const;
  // PAPCOLL_ERR_ARG for an argument only this rank passes that way (a NULL buffer, MPI_IN_PLACE
  // off the root, its own count): the other ranks may go on (fail_local, error.hpp).
  int local_arg_error(const std::string& what) const;
  int mpi_error(const MpiStatus& s) const;

  // The communicator (not null, not an intercommunicator); sets p() and rank().
  int check_comm(MPI_Comm comm);
  // The options (version, monitor handle, blocks, Hockney parameters, algorithm name).
  int check_options(const papcoll_options* user_opt);
  // Arrival times where the call reads them (`reads_arrivals`: the collective does, and the
  // algorithm or "auto"): an array when arrivals_count says there is one, and agreed ones
  // comm-size finite values. Only this rank's copy is seen, so a problem is refused without the
  // pattern (PAPCOLL_ERR_ARRIVALS); rank 0's vector, broadcast when they are not agreed, is
  // checked on every rank alike after the broadcast.
  ArgProblem arrivals_problem(bool reads_arrivals);
  // Whether the options mention arrival times at all (else arrivals_problem finds nothing).
  bool has_arrivals_option() const { return opt_.arrivals != nullptr || opt_.arrivals_count != 0; }
  // A rank that refused the call: its options become the call's as another rank published it
  // (algorithm, blocks, Hockney parameters, arrivals; observe/call_board.hpp BoardCall), keeping
  // its own monitor (which must be there when theirs is) and model file. False, with *why, when
  // that cannot be.
  bool adopt_options(const observe::BoardCall& c, const observe::CallArrays& arrays,
                     std::string* why);
  // A datatype the executor can run on: not null, extent > 0 unless it carries no data. `what`
  // names the argument in the message ("datatype", "recvtype").
  int check_datatype(MPI_Datatype type, const char* what, DatatypeLayout* out) const;
  // The same verdict without failing the call: the code, with the reason in *why (no "<who>: "),
  // for checks whose error is reported later (scatterv/gatherv, scatter_gather_call.hpp).
  int datatype_problem(MPI_Datatype type, const char* what, DatatypeLayout* out,
                       std::string* why) const;
  // A root in [0, p).
  ArgProblem root_problem(int root) const;
  // Not MPI_OP_NULL, and not a non-commutative op for an algorithm that reorders the reduction
  // (PAPCOLL_ERR_OP); sets commutative().
  ArgProblem op_problem(MPI_Op op);

  // One monitor step when the options name a monitor: the call's first communication.
  int enter_monitor(MPI_Comm comm, double entry_time);
  // After the algorithm is chosen (nullptr: the MPI library's): tells the monitor whether the
  // call reads arrival times (history sampling, docs/prediction.md).
  void note_algorithm(const AlgorithmInfo* algo);
  // The communicator's context (collective the first time: it duplicates `comm`), and the
  // network's parameters in cost(): the options' alpha, beta and gamma where given (> 0), else
  // the communicator's (calibrated at the first call that reads them: reads_network()).
  // settle_network false: the context only (PAPCOLL_CHECK's exchange, which runs before the ranks
  // are known to agree on what decides reads_network(), so it must not start a measurement).
  int open_context(MPI_Comm comm, bool settle_network = true);
  // Reductions: the element type whose reduction speed (gamma class) cost() takes. Before
  // open_context.
  void set_reduction_type(MPI_Datatype unit);
  // The agreed arrival vector when the algorithm (or "auto") reads one, else empty. After
  // open_context().
  int arrivals(std::vector<double>* out);

  const papcoll_options& options() const { return opt_; }
  // arrivals_problem read every agreed arrival time and found them valid (count, finite).
  bool agreed_arrivals_checked() const { return agreed_arrivals_checked_; }
  const CostParams& cost() const { return cost_; }
  const Selection& selection() const { return sel_; }
  // The monitor's predicted pattern of this call (empty without a monitor or a prediction).
  const prediction::CallPattern& predicted() const { return predicted_; }
  int p() const { return p_; }
  int rank() const { return rank_; }
  bool commutative() const { return commutative_; }
  CommContext& context() const { return *ctx_; }
  const char* who() const { return who_; }
  Collective collective() const { return collective_; }

  // Records the algorithm the call runs (nullptr: the MPI library's) for papcoll_last_algorithm.
  static void record_algorithm(const AlgorithmInfo* algo);
  // Records the parameters a call (or papcoll_calibrate) used, for papcoll_last_network; `used`
  // is what the call ran with, `source` where its alpha and beta came from.
  static void record_network(const NetworkParams& comm_params, const CostParams& used,
                             NetworkSource source);

  // Block count of a schedule: the caller's, else the algorithm's default for `in` (p, bytes and
  // Hockney parameters set), never more than `elements` (empty blocks only add messages or
  // rounds) and never below 1.
  int block_count(const AlgorithmInfo& algo, const GeneratorInput& in, long long elements) const;

 private:
  const char* who_;
  Collective collective_;
  papcoll_options opt_{};
  CostParams cost_;
  Selection sel_;
  prediction::MonitorLease monitor_;  // held until the call returns (papcoll_monitor_free waits)
  bool options_read_ = false;         // opt_ holds the caller's options (their version is known)
  std::vector<double> adopted_arrivals_;  // adopt_options: the arrivals the others use
  bool agreed_arrivals_checked_ = false;  // arrivals_problem found opt_'s agreed values finite
  bool in_monitor_call_ = false;
  prediction::CallPattern predicted_;
  int p_ = 1;
  int rank_ = 0;
  bool commutative_ = true;
  CommContext* ctx_ = nullptr;
  bool alpha_given_ = false, beta_given_ = false, gamma_given_ = false;
  GammaClass gamma_class_ = GammaClass::float64;

  // Whether the call reads the network's parameters (so its first such call on a communicator
  // calibrates): not for p = 1 or "native", nor for "auto" of a reduction without arrival times
  // (options or monitor), nor where the options give alpha and beta, except for
  // scatterv/gatherv, whose other ranks may pass options that differ from the root's. The same
  // verdict on every rank (options, algorithm and size are).
  bool reads_network(bool several_per_node) const;
};

// The gamma class of a predefined element type (float, the integers; anything else as double).
GammaClass gamma_class_of(MPI_Datatype t);

}  // namespace papcoll
