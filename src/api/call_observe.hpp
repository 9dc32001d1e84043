// What the driver tells the call board and the report about a call (observe/call_watch.hpp):
// after the checks, the report's key and whether a refusing rank could join the call; right
// before the messages, the call's descriptor (observe/call_board.hpp JoinDescriptor), what runs
// and why. Only called when the watch is on.
#pragma once

#include "api/call_check.hpp"
#include "api/collective_call.hpp"
#include "observe/call_watch.hpp"
#include "select/selection.hpp"

namespace papcoll {

// Whether a rank that refused this call could run it from the descriptor: the call's first
// messages must come after the descriptor (no monitor, no arrivals broadcast, not a v-collective
// whose agreement comes first).
bool joinable_call(const CollectiveCall& call);

// The descriptor of a call as this rank runs it (`algo` null: the MPI library's collective).
observe::JoinDescriptor join_descriptor(const CollectiveCall& call, const CallDescriptor& d,
                                        const AlgorithmInfo* algo);

observe::AutoReason auto_reason(const CollectiveCall& call, const AutoChoice& choice,
                                bool native);

template <typename Description>
void observe_checked(observe::CallWatch& w, const CollectiveCall& call, const Description& d) {
  w.set_key(d.agreed_bytes(), d.descriptor().root);
  if (!joinable_call(call)) w.not_joinable();
}

// What join_descriptor() reads; equal inputs give an equal descriptor.
observe::JoinInputs join_inputs(const CollectiveCall& call, const CallDescriptor& d,
                                const AlgorithmInfo* algo);

template <typename Description>
void observe_ready(observe::CallWatch& w, const CollectiveCall& call, const Description& d,
                   const AlgorithmInfo* algo, const AutoChoice& choice) {
  if (w.has_board()) {
    // A call like the previous one on the communicator (a loop) publishes the same descriptor
    // without rebuilding it: the board then extends its run with one store.
    observe::CommObserver& o = *w.observer();
    const CallDescriptor cd = d.descriptor();
    const observe::JoinInputs in = join_inputs(call, cd, algo);
    if (!o.join_memo_valid || !(in == o.join_inputs)) {
      o.join_made = join_descriptor(call, cd, algo);
      o.join_inputs = in;
      o.join_memo_valid = true;
    }
    w.ready(o.join_made);
  }
  w.ran(algo != nullptr ? algo->name : "native", auto_reason(call, choice, algo == nullptr),
        choice.gain);
  const std::vector<double>& predicted = call.predicted().arrivals;
  if (static_cast<int>(predicted.size()) == call.p())
    w.set_predicted(predicted[static_cast<size_t>(call.rank())]);
}

}  // namespace papcoll
