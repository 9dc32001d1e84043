#include "api/collective_driver.hpp"

#include <utility>

#include "api/error.hpp"
#include "api/schedule_source.hpp"

namespace papcoll {

AutoRequest CollectiveDescription::auto_request(const CollectiveCall& call,
                                                std::vector<double> arrivals) {
  AutoRequest r;
  r.base.p = call.p();
  r.base.cost = call.cost();
  r.base.arrivals = std::move(arrivals);
  r.commutative = call.commutative();
  return r;
}

int CollectiveDescription::obtain(CollectiveCall& call, const AlgorithmInfo* algo,
                                  std::vector<double> arrivals,
                                  std::shared_ptr<const RankSchedule>* schedule,
                                  GeneratorInput* in) {
  if (algo == nullptr)
    return fail(PAPCOLL_ERR_INTERNAL, std::string(call.who()) + ": no algorithm to run");
  *in = generator_input(call, *algo, std::move(arrivals));
  return obtain_schedule(call.context(), *algo, *in, call.who(), schedule);
}

int refuse_without_pattern(CollectiveCall& call, MPI_Comm comm, CollectiveDescription* d,
                           int code) {
  if (check_mode() && call.p() > 0)
    return check_call(call, comm, d != nullptr ? d->descriptor() : CallDescriptor{}, code);
  // papcoll_last_error() already holds the message; the code is the rank's own.
  return code;
}

namespace {

// Steps 5 to 8, after every check passed (or a stand-in replaced the rank's buffers).
int run_checked(CollectiveCall& call, CollectiveDescription& d, MPI_Comm comm) {
  if (d.moves_nothing()) return PAPCOLL_SUCCESS;  // the same on every rank: no messages
  PAPCOLL_TRY(call.open_context(comm));
  PAPCOLL_TRY(d.agree(call));
  std::vector<double> arrivals;
  if (d.reads_arrivals()) PAPCOLL_TRY(call.arrivals(&arrivals));

  const Selection& sel = call.selection();
  const AlgorithmInfo* algo = sel.algo;
  bool native = !sel.is_auto && sel.algo == nullptr;
  if (sel.is_auto && !d.needs_native()) {
    const AutoChoice choice = choose_auto(call.collective(), d.auto_request(call, arrivals));
    algo = choice.algo;
    native = choice.native;
  }
  if (native || d.needs_native()) {
    CollectiveCall::record_algorithm(nullptr);
    return d.run_native(call);
  }
  if (call.p() == 1) {
    int rc = PAPCOLL_SUCCESS;
    if (algo != nullptr) CollectiveCall::record_algorithm(algo);
    if (d.run_alone(call, &rc)) return rc;
  }
  std::shared_ptr<const RankSchedule> schedule;
  GeneratorInput in;
  PAPCOLL_TRY(d.obtain(call, algo, std::move(arrivals), &schedule, &in));
  if (algo != nullptr) CollectiveCall::record_algorithm(algo);
  const MpiStatus s = d.execute(call, *schedule, in);
  return s.ok() ? PAPCOLL_SUCCESS : call.mpi_error(s);
}

}  // namespace

int run_collective(const char* who, Collective c, CollectiveDescription& d,
                   const papcoll_options* opt, MPI_Comm comm, double entry_time) {
  CollectiveCall call(who, c);
  PAPCOLL_TRY(call.check_comm(comm));  // without a communicator nobody can be told anything
  if (int rc = call.check_options(opt); rc != PAPCOLL_SUCCESS)
    return refuse_without_pattern(call, comm, nullptr, rc);
  const ArgProblem problem = d.check(call);
  if (!problem.ok() && (!problem.pattern_known || !d.stand_in(call, problem)))
    return refuse_without_pattern(
        call, comm, &d, problem.pattern_known ? problem.report_local(call) : problem.report(call));
  if (check_mode()) PAPCOLL_TRY(check_call(call, comm, d.descriptor(), PAPCOLL_SUCCESS));
  PAPCOLL_TRY(call.enter_monitor(comm, entry_time));
  PAPCOLL_TRY(run_checked(call, d, comm));
  // A rank that took part with stand-ins: the others completed normally and cannot see this.
  if (!problem.ok()) return problem.report_local(call);
  if (const ArgProblem* late = d.late_problem(); late != nullptr && !late->ok())
    return late->report_local(call);
  return PAPCOLL_SUCCESS;
}

}  // namespace papcoll
