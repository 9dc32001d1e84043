// What the driver tells the call board and the report about a call (observe/call_watch.hpp):
// after the checks, the report's key and the call as this rank passes it (observe/call_board.hpp
// BoardCall, before any of its communication: what a rank that refused the call substitutes, what
// the watchdog compares); right before the messages, what runs and why. Only called when the
// watch is on.
#pragma once

#include <cstdint>

#include "api/call_check.hpp"
#include "api/collective_call.hpp"
#include "error/hot_path.hpp"
#include "observe/call_watch.hpp"
#include "select/selection.hpp"

namespace papcoll {

struct OwnError;

// BoardCall::flags from the options: a monitor, arrivals (given, agreed) where the call reads
// them (`reads_arrivals`: the collective does, and the algorithm or "auto").
std::uint32_t published_flags(const CollectiveCall& call, bool reads_arrivals);

// The call as this rank passes it, with its arrays (null or p entries).
observe::BoardCall board_call(const CollectiveCall& call, const CallDescriptor& d,
                              std::uint32_t flags, const double* arrivals,
                              const long long* portions);

// What board_call() reads; equal inputs give an equal call (calls without arrays).
inline observe::PublishInputs publish_inputs(const CollectiveCall& call, const CallDescriptor& cd,
                                             std::uint32_t flags) {
  using observe::PublishInputs;
  PublishInputs in;
  in.collective = static_cast<int>(call.collective());
  in.flags = flags;
  in.count = cd.count >= 0 ? cd.count : cd.units;  // scatterv/gatherv: the own portion's bytes
  in.type = PublishInputs::bits(cd.type);
  in.op = cd.has_op ? PublishInputs::bits(cd.op) : 0;
  const Selection& sel = call.selection();
  in.algorithm = sel.is_auto ? 1 : reinterpret_cast<std::uint64_t>(sel.algo);
  in.root = cd.root;
  const papcoll_options& o = call.options();
  in.blocks = o.blocks;
  in.alpha = o.alpha;
  in.beta = o.beta;
  in.gamma = o.gamma;
  return in;
}

// Publishes the call on the board (a loop's repeated call: one store). `reads_arrivals`: the
// collective reads arrival times (published_flags); `stand_in`: this rank takes part with
// stand-in data.
void publish_call(observe::CallWatch& w, const CollectiveCall& call, const CallDescriptor& d,
                  bool reads_arrivals, bool stand_in);

observe::AutoReason auto_reason(const CollectiveCall& call, const AutoChoice& choice);

template <typename Description, typename Own>
PAPCOLL_HOT void observe_checked(observe::CallWatch& w, const CollectiveCall& call,
                                 const Description& d, const Own& own) {
  const CallDescriptor cd = d.descriptor();
  w.set_key(d.agreed_bytes(), cd.root);
  if (!w.has_board()) return;
  const bool stand_in = !own.ok();
  // The steady state, inline: a call without arrays or stand-ins like the previous one.
  if (cd.portions == nullptr && !stand_in && !call.has_arrivals_option()) [[likely]] {
    const std::uint32_t flags =
        call.options().monitor != nullptr ? static_cast<std::uint32_t>(observe::kCallMonitor) : 0u;
    const observe::PublishInputs in = publish_inputs(call, cd, flags);
    observe::CommObserver& o = *w.observer();
    if (o.publish_memo_valid && in.same(o.publish_inputs)) [[likely]] {
      w.publish_same(o.published);
      return;
    }
  }
  publish_call(w, call, cd, d.reads_arrivals(), stand_in);
}

PAPCOLL_HOT inline void observe_ready(observe::CallWatch& w, const CollectiveCall& call,
                                      const AlgorithmInfo* algo, const AutoChoice& choice) {
  w.ran(algo != nullptr ? algo->name : "native", auto_reason(call, choice), choice.gain);
  const std::vector<double>& predicted = call.predicted().arrivals;
  if (static_cast<int>(predicted.size()) == call.p())
    w.set_predicted(predicted[static_cast<size_t>(call.rank())]);
}

}  // namespace papcoll
