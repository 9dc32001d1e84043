#include "api/refusal_join.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include "api/call_observe.hpp"
#include "api/stand_in.hpp"
#include "error/error.hpp"
#include "executor/datatype_layout.hpp"
#include "observe/mpi_names.hpp"
#include "observe/refusal.hpp"
#include "papcoll/papcoll.h"
#include "schedule/registry.hpp"

namespace papcoll {
namespace {

int algorithm_position(Collective c, const AlgorithmInfo* algo) {
  if (algo == nullptr) return -1;
  int position = 0;  // among the collective's rows, as algorithms_for(c) lists them
  for (const AlgorithmInfo& a : all_algorithms()) {
    if (a.collective != c) continue;
    if (&a == algo) return position;
    ++position;
  }
  return -2;
}

// Runs call `d` with stand-in data; "" when it ran, else why not.
std::string join_call(MPI_Comm comm, int rank, const observe::JoinDescriptor& d) {
  const Collective c = static_cast<Collective>(d.collective);
  const MPI_Datatype type = observe::type_of_index(d.type);
  if (type == MPI_DATATYPE_NULL) return "their datatype is not a predefined one";
  std::string algorithm = "native";
  if (d.algorithm >= 0) {
    const std::vector<const AlgorithmInfo*> all = algorithms_for(c);
    if (d.algorithm >= static_cast<int>(all.size())) return "their algorithm is unknown here";
    algorithm = all[static_cast<size_t>(d.algorithm)]->name;
  }
  papcoll_options o;
  papcoll_options_init(&o);
  o.algorithm = algorithm.c_str();
  o.blocks = d.blocks;
  o.alpha = d.alpha;
  o.beta = d.beta;
  o.gamma = d.gamma;
  DatatypeLayout layout;
  if (!query_layout(type, &layout).ok()) return "their datatype cannot be queried";
  if (d.count < 0 || d.count > INT32_MAX) return "their count is out of range";
  const int count = static_cast<int>(d.count);
  StandInBuffer mem;
  void* buf = mem.elements(layout, d.count);  // zeros
  const MPI_Op op = observe::op_of_index(d.op);
  if ((c == Collective::allreduce || c == Collective::reduce) &&
      !fill_identity(buf, d.count, layout, op))
    return std::string("the op ") + observe::op_name(d.op) + " has no identity papcoll knows";
  const observe::Unobserved quiet;  // the refused call is the one already numbered
  int rc = PAPCOLL_ERR_INTERNAL;
  switch (c) {
    case Collective::allreduce:
      rc = papcoll_allreduce(MPI_IN_PLACE, buf, count, type, op, comm, &o);
      break;
    case Collective::reduce:
      rc = rank == d.root
               ? papcoll_reduce(MPI_IN_PLACE, buf, count, type, op, d.root, comm, &o)
               : papcoll_reduce(buf, nullptr, count, type, op, d.root, comm, &o);
      break;
    case Collective::bcast:
      rc = papcoll_bcast(buf, count, type, d.root, comm, &o);
      break;
    default:
      return "it is not an allreduce, reduce or bcast";
  }
  if (rc != PAPCOLL_SUCCESS) {
    mem.abandon();  // a receive may still be posted into it
    return papcoll_last_error();
  }
  return "";
}

const char* stand_in_words(Collective c, int rank, int root) {
  switch (c) {
    case Collective::allreduce: return "the op's identity";
    case Collective::reduce: return rank == root ? "the op's identity (the result dropped)"
                                                 : "the op's identity";
    case Collective::bcast: return rank == root ? "zeros" : "a scratch buffer";
    default: return "stand-in data";
  }
}

}  // namespace

bool joinable_call(const CollectiveCall& call) {
  const Collective c = call.collective();
  if (c != Collective::allreduce && c != Collective::reduce && c != Collective::bcast)
    return false;
  const papcoll_options& o = call.options();
  const Selection& sel = call.selection();
  const bool reads_arrivals = sel.is_auto || (sel.algo != nullptr && sel.algo->uses_arrivals);
  return o.monitor == nullptr && !(o.arrivals != nullptr && !o.arrivals_agreed && reads_arrivals);
}

observe::JoinInputs join_inputs(const CollectiveCall& call, const CallDescriptor& cd,
                                const AlgorithmInfo* algo) {
  observe::JoinInputs in;
  in.collective = static_cast<int>(call.collective());
  in.count = cd.count;
  in.type = cd.type;
  in.has_op = cd.has_op;
  if (cd.has_op) in.op = cd.op;
  in.root = cd.root;
  in.algorithm = algo;
  in.joinable_call = joinable_call(call);
  const papcoll_options& o = call.options();
  in.blocks = o.blocks;
  in.alpha = o.alpha;
  in.beta = o.beta;
  in.gamma = o.gamma;
  return in;
}

observe::JoinDescriptor join_descriptor(const CollectiveCall& call, const CallDescriptor& cd,
                                        const AlgorithmInfo* algo) {
  observe::JoinDescriptor j;
  j.seq = 0;
  j.collective = static_cast<int>(call.collective());
  j.count = cd.count;
  j.type = observe::type_index(cd.type);
  j.op = cd.has_op ? observe::op_index(cd.op) : -1;
  j.root = cd.root;
  j.algorithm = algorithm_position(call.collective(), algo);
  const papcoll_options& o = call.options();
  j.blocks = o.blocks;
  j.refused = 0;
  j.alpha = o.alpha;
  j.beta = o.beta;
  j.gamma = o.gamma;
  j.joinable = j.type >= 0 && (!cd.has_op || j.op >= 0) && j.algorithm >= -1 &&
                       (algo == nullptr || !algo->uses_arrivals) && joinable_call(call)
                   ? 1
                   : 0;
  return j;
}

observe::AutoReason auto_reason(const CollectiveCall& call, const AutoChoice& choice,
                                bool native) {
  using observe::AutoReason;
  (void)native;
  if (!call.selection().is_auto) return AutoReason::named;
  switch (choice.why) {
    case AutoWhy::rule: return AutoReason::rule;
    case AutoWhy::no_pattern: return AutoReason::no_pattern;
    case AutoWhy::balanced: return AutoReason::balanced;
    case AutoWhy::small_gain: return AutoReason::small_gain;
    case AutoWhy::aware: return AutoReason::aware;
  }
  return AutoReason::rule;
}

int settle_on_board(MPI_Comm comm, int rank, int code, observe::CallWatch& watch) {
  const std::string message = papcoll_last_error();
  const bool local = last_error_is_local();
  watch.refused(code, message.c_str());
  observe::JoinDescriptor d{};
  switch (observe::settle_refusal(*watch.observer(), watch.seq(), &d)) {
    case observe::Settled::alone:
    case observe::Settled::all_refused:
      return local ? fail_local(code, message) : fail(code, message);
    case observe::Settled::join: {
      const Collective c = static_cast<Collective>(d.collective);
      const std::string why_not = join_call(comm, rank, d);
      if (why_not.empty())
        return fail_local(code, message + " (this rank took part in the other ranks' " +
                                    collective_name(c) + " with " +
                                    stand_in_words(c, rank, d.root) + ")");
      return fail_local(code, message + " (this rank could not take part in the other ranks' " +
                                  collective_name(c) + ": " + why_not + "; they may wait for it)");
    }
    case observe::Settled::not_joinable:
      return fail_local(code, message + " (the other ranks are in a call this rank cannot run "
                                        "without its arguments; they wait for it, and "
                                        "PAPCOLL_TIMEOUT names this refusal)");
    case observe::Settled::went_on:
      return fail_local(code, message + " (the other ranks' call moved no data)");
  }
  return code;
}

}  // namespace papcoll
