#include "api/refusal_join.hpp"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "api/call_observe.hpp"
#include "error/error.hpp"
#include "error/hot_path.hpp"
#include "observe/disagreement.hpp"
#include "observe/mpi_names.hpp"
#include "observe/refusal.hpp"
#include "papcoll/papcoll.h"
#include "schedule/registry.hpp"

namespace papcoll {
namespace {

std::int32_t algorithm_position(Collective c, const Selection& sel) {
  if (sel.is_auto) return observe::kAlgorithmAuto;
  if (sel.algo == nullptr) return observe::kAlgorithmNative;
  std::int32_t position = 0;  // among the collective's rows, as algorithms_for(c) lists them
  for (const AlgorithmInfo& a : all_algorithms()) {
    if (a.collective != c) continue;
    if (&a == sel.algo) return position;
    ++position;
  }
  return observe::kAlgorithmNative;
}

// The board's source of published calls for one refused call.
class BoardSource final : public PublishedSource {
 public:
  BoardSource(observe::CallWatch& watch, observe::FoundCall found)
      : watch_(watch), found_(std::move(found)) {}
  const observe::FoundCall& found() const override { return found_; }
  bool call_of(int rank, observe::FoundCall* out) override {
    return observe::published_call(*watch_.observer(), watch_.seq(), rank, out);
  }
  bool calls(std::vector<observe::BoardCall>* out) override {
    return observe::published_calls(*watch_.observer(), watch_.seq(), out);
  }

 private:
  observe::CallWatch& watch_;
  observe::FoundCall found_;
};

// "<who>: " taken off a recorded message.
std::string without_who(const CollectiveCall& call, const std::string& message) {
  const std::string prefix = std::string(call.who()) + ": ";
  return message.compare(0, prefix.size(), prefix) == 0 ? message.substr(prefix.size()) : message;
}

std::string rank_words(const observe::BoardSlot& s, int rank) {
  std::string out = "rank " + std::to_string(rank);
  if (s.world_rank != rank) out += " (world rank " + std::to_string(s.world_rank) + ")";
  return out;
}

}  // namespace

PAPCOLL_HOT std::uint32_t published_flags(const CollectiveCall& call, bool reads_arrivals) {
  const papcoll_options& o = call.options();
  std::uint32_t f = 0;
  if (o.monitor != nullptr) f |= observe::kCallMonitor;
  const Selection& sel = call.selection();
  const bool arrivals_read = reads_arrivals &&
                             (sel.is_auto || (sel.algo != nullptr && sel.algo->uses_arrivals));
  if (arrivals_read && o.arrivals != nullptr) {
    f |= observe::kCallArrivals;
    if (o.arrivals_agreed) f |= observe::kCallArrivalsAgreed;
  }
  return f;
}

PAPCOLL_HOT observe::BoardCall board_call(const CollectiveCall& call, const CallDescriptor& cd,
                                          std::uint32_t flags, const double* arrivals,
                                          const long long* portions) {
  observe::BoardCall b{};
  b.collective = static_cast<int>(call.collective());
  b.flags = flags;
  b.count = cd.count;
  b.units = cd.units;
  b.type = cd.type != MPI_DATATYPE_NULL ? observe::type_index(cd.type) : -1;
  b.unit_type = cd.unit_type != MPI_DATATYPE_NULL ? observe::type_index(cd.unit_type) : -1;
  b.op = -1;
  if (cd.has_op) {
    b.op = observe::op_index(cd.op);
    if (b.op < 0) b.op = observe::kUserOp;
  }
  b.root = cd.root;
  b.algorithm = algorithm_position(call.collective(), call.selection());
  const papcoll_options& o = call.options();
  b.blocks = o.blocks;
  b.alpha = o.alpha;
  b.beta = o.beta;
  b.gamma = o.gamma;
  const size_t p = static_cast<size_t>(call.p());
  b.arrivals_hash = arrivals != nullptr ? observe::bytes_hash(arrivals, p * sizeof(double)) : 0;
  b.portions_hash = portions != nullptr ? observe::bytes_hash(portions, p * sizeof(long long)) : 0;
  return b;
}

PAPCOLL_HOT void publish_call(observe::CallWatch& w, const CollectiveCall& call,
                              const CallDescriptor& cd, bool reads_arrivals, bool stand_in) {
  std::uint32_t flags = published_flags(call, reads_arrivals);
  if (stand_in) flags |= observe::kCallStandIn;
  const double* arrivals = (flags & observe::kCallArrivalsAgreed) ? call.options().arrivals
                                                                  : nullptr;
  const long long* portions = cd.portions;
  if (portions != nullptr) flags |= observe::kCallPortions;
  observe::CommObserver& o = *w.observer();
  if (arrivals != nullptr || portions != nullptr) {
    w.publish(board_call(call, cd, flags, arrivals, portions), arrivals, portions);
    return;
  }
  // A call like the previous one on the communicator (a loop) publishes the same fields without
  // rebuilding them: the board then extends its run with one store.
  const observe::PublishInputs in = publish_inputs(call, cd, flags);
  if (!o.publish_memo_valid || !in.same(o.publish_inputs)) {
    o.published = board_call(call, cd, flags, nullptr, nullptr);
    o.publish_inputs = in;
    o.publish_memo_valid = true;
    w.publish(o.published);  // compared with the latest run's fields: it may still extend it
    return;
  }
  w.publish_same(o.published);
}

PAPCOLL_HOT observe::AutoReason auto_reason(const CollectiveCall& call, const AutoChoice& choice) {
  using observe::AutoReason;
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

int settle_on_board(CollectiveCall& call, CollectiveDescription& d, int code,
                    observe::CallWatch& watch, OwnError* own) {
  const std::string message = papcoll_last_error();
  const bool local = last_error_is_local();
  watch.refused(code, message.c_str());
  observe::FoundCall found;
  const observe::Settled settled = observe::settle_refusal(*watch.observer(), watch.seq(), &found);
  if (settled == observe::Settled::alone || settled == observe::Settled::all_refused)
    return local ? fail_local(code, message) : fail(code, message);
  if (settled == observe::Settled::went_on)
    return fail_local(code, message + " (the other ranks are past this call: their results do "
                                      "not depend on this rank)");
  const Collective theirs = static_cast<Collective>(found.call.collective);
  const std::string name = collective_name(call.collective());
  if (theirs != call.collective())
    return fail_local(code, message + " (rank " + std::to_string(found.rank) + " is in " +
                                collective_name(theirs) + ", not " + name +
                                ": the other ranks may wait for this rank)");
  ArgProblem refusal;
  refusal.note(code, without_who(call, message), false);
  std::string why;
  BoardSource source(watch, found);
  if (!call.adopt_options(found.call, found.arrays, &why) ||
      !d.substitute(call, source, refusal, &why))
    return fail_local(code, message + " (this rank cannot take part in the other ranks' " + name +
                                ": " + why +
                                "; they may wait for it, and the watchdog names "
                                "this refusal)");
  own->code = code;
  own->local = true;
  own->substituted = true;
  own->message = message + " (this rank took part in the other ranks' " + name + " with " +
                 d.stand_in_words(call) + ")";
  return code;
}

int explain_mpi_failure(observe::CallWatch& watch, int code) {
  if (!watch.has_board()) return code;
  const std::string message = papcoll_last_error();
  const bool local = last_error_is_local();
  observe::CommObserver& o = *watch.observer();
  std::vector<observe::BoardCall> calls(static_cast<size_t>(o.size));
  std::vector<const observe::BoardCall*> published(static_cast<size_t>(o.size), nullptr);
  for (int q = 0; q < o.size; ++q) {
    observe::BoardSlot s;
    observe::BoardCall& c = calls[static_cast<size_t>(q)];
    if (o.board.read(q, &s) && observe::Board::call(s, watch.seq(), &c) &&
        (c.flags & observe::kCallRefused) == 0)
      published[static_cast<size_t>(q)] = &c;
  }
  const std::string what = observe::disagreement(published);
  if (what.empty()) return code;
  const std::string m = message + " (the ranks' calls differ: " + what + ")";
  return local ? fail_local(code, m) : fail(code, m);
}

int peer_error(const CollectiveCall& call, observe::CallWatch& watch) {
  observe::CommObserver& o = *watch.observer();
  const std::uint64_t seq = watch.seq();
  std::vector<std::string> erred;
  for (int q = 0; q < o.size; ++q) {
    if (q == o.rank) continue;
    observe::BoardSlot s;
    observe::BoardCall c;
    if (!o.board.read(q, &s)) continue;
    // Its call says it refused or took part with stand-ins, or it recorded a problem with this
    // call after publishing it (scatterv/gatherv: its portion against the root's bytes).
    const observe::BoardProblem* pr = observe::Board::problem(s, seq);
    const bool flagged = observe::Board::call(s, seq, &c) &&
                         (c.flags & (observe::kCallRefused | observe::kCallStandIn)) != 0;
    if (!flagged && pr == nullptr) continue;
    std::string why = "no reason on the board";
    if (pr != nullptr)
      why = without_who(call, std::string(pr->message, strnlen(pr->message, sizeof pr->message)));
    erred.push_back(rank_words(s, q) + " (" + why + ")");
  }
  if (erred.empty()) return PAPCOLL_SUCCESS;  // the word was raised for a later call
  std::string m = std::string(call.who()) + ": ";
  for (size_t i = 0; i < erred.size(); ++i)
    m += (i == 0 ? "" : i + 1 == erred.size() ? " and " : ", ") + erred[i];
  m += erred.size() == 1 ? " erred in this call and took part with stand-in data, so this "
                           "rank's result lacks its data (docs/errors.md)"
                         : " erred in this call and took part with stand-in data, so this "
                           "rank's result lacks their data (docs/errors.md)";
  // Not handed to the MPI library by the interposition library: the call did run.
  return fail_local(PAPCOLL_ERR_PEER, std::move(m));
}

}  // namespace papcoll
