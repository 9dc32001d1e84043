#include "api/collective_driver.hpp"

#include <utility>

#include "api/refusal_join.hpp"
#include "api/schedule_source.hpp"
#include "error/error.hpp"

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

int OwnError::report() const {
  std::string m = message;
  if (!told)
    m += " (the board could not tell the ranks whose result holds this rank's stand-in data: "
         "they may report success)";
  return local ? fail_local(code, std::move(m)) : fail(code, std::move(m));
}

int refuse_without_pattern(CollectiveCall& call, MPI_Comm comm, CollectiveDescription& d,
                           bool checked, int code, observe::CallWatch& watch, OwnError* own) {
  if (check_mode() && call.p() > 0)
    return check_call(call, comm, checked ? d.descriptor() : CallDescriptor{}, code);
  // papcoll_last_error() already holds the message; the code is the rank's own.
  if (!watch.has_board() || observe::thread_cache().mpi_call != 0) return code;
  return settle_on_board(call, d, code, watch, own);
}

void tell_data_readers(const CollectiveCall& call, const CollectiveDescription& d,
                       observe::CallWatch& watch, OwnError* own) {
  const int p = call.p(), rank = call.rank();
  switch (d.data_readers(call)) {
    case DataReaders::none: return;
    case DataReaders::root: {
      const int root = d.descriptor().root;
      if (root != rank && root >= 0 && root < p && !watch.notify(root)) own->told = false;
      return;
    }
    case DataReaders::all:
      for (int q = 0; q < p; ++q)
        if (q != rank && !watch.notify(q)) own->told = false;
      return;
  }
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
  call.context().arrivals_spare = std::move(in.arrivals);  // kept for the next call
  return s.ok() ? PAPCOLL_SUCCESS : call.mpi_error(s);
}

}  // namespace papcoll
