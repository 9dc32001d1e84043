#include "api/collective_driver.hpp"

#include <utility>

#include "api/refusal_join.hpp"
#include "api/schedule_source.hpp"
#include "error/error.hpp"

namespace papcoll {

AutoRequest CollectiveDescription::auto_request(const CollectiveCall& call,
                                                const std::vector<double>& arrivals) {
  AutoRequest r;
  r.base.p = call.p();
  r.base.cost = call.cost();
  r.base.arrivals = arrivals;
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
                           int code, observe::CallWatch& watch) {
  if (check_mode() && call.p() > 0)
    return check_call(call, comm, d != nullptr ? d->descriptor() : CallDescriptor{}, code);
  // papcoll_last_error() already holds the message; the code is the rank's own.
  if (!watch.has_board()) return code;
  return settle_on_board(comm, call.rank(), code, watch);
}

int run_schedule(CollectiveCall& call, CollectiveDescription& d, const AlgorithmInfo* algo,
                 std::vector<double> arrivals) {
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

}  // namespace papcoll
