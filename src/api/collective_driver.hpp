// One driver for the six entry points: the order of a call's steps lives here, once; each
// collective is a description (CollectiveDescription) of what is its own: its argument and buffer
// rules, MPI_IN_PLACE, its stand-in data, its generator input and its executor wrapper.
//
// The steps (run_collective):
//  1. The communicator (CollectiveCall::check_comm); then, at the communicator's first call, its
//     observer and call board, collectively (observe::CallWatch): every rank gets there whatever
//     its other arguments, so no refusal can leave the others waiting for a board that is not
//     there. Then the options and the algorithm name.
//  2. The description's argument checks. A problem is handled where it is seen, on one rank:
//     - the rank still knows the call's message pattern (only a buffer is NULL or aliased):
//       it takes part with stand-in data (scratch memory; for reductions the op's identity) and
//       returns its error after the communication, so no other rank waits for it forever and
//       nothing the user passed is written (describe(): stand_in);
//     - it does not (a negative count, MPI_DATATYPE_NULL, an unknown algorithm, a root out of
//       range, MPI_OP_NULL, a wrong agreed arrival vector): refuse_without_pattern, the one place
//       such refusals go; through the call board it takes the call as another rank published it
//       and runs that with stand-in data (substitute), or every rank refused alike.
//     Every rank then publishes the call as it passes it on the board (api/call_observe.hpp),
//     before any of its communication: what a refusing rank substitutes and the watchdog
//     compares.
//  3. PAPCOLL_CHECK=1 only: every rank's descriptor is compared (call_check.hpp).
//  4. The monitor's call step: the first communication of a call that passed its checks.
//  5. Nothing to move on any rank (decided from values every rank agrees on): done.
//  6. The communicator's context; a rank taking part with stand-in data tells the ranks whose
//     result holds it (data_readers, observe::Board::notify), before its first message; the
//     description's agreement step (scatterv/gatherv: the root's broadcast), the agreed arrival
//     vector where the algorithm or "auto" reads one.
//  7. The algorithm: the caller's, or "auto" through the one seam choose_auto (selection.hpp).
//  8. "native": the MPI library's collective; p = 1: the local copy; else the schedule
//     (schedule_source.hpp, the one place schedules come from) and the executor.
//  9. The rank's own error, if it took part with stand-ins; else PAPCOLL_ERR_PEER when another
//     rank told it that its result holds stand-in data (one load of its own board slot).
//
// Blocks are split in units every rank agrees on (datatype_layout.hpp DataView), never in a
// rank's own element count, which MPI lets differ between ranks with matching type signatures.
#pragma once

#include <mpi.h>

#include <cmath>
#include <memory>
#include <span>
#include <vector>

#include "api/call_check.hpp"
#include "api/call_observe.hpp"
#include "api/collective_call.hpp"
#include "api/mpi_library.hpp"
#include "error/hot_path.hpp"
#include "executor/comm_context.hpp"
#include "observe/call_watch.hpp"
#include "observe/refusal.hpp"

namespace papcoll {

// Whose result of a call holds this rank's data: the ranks it tells when it takes part with
// stand-in data (docs/errors.md).
enum class DataReaders { none, root, all };

// Where a rank that refused a call reads it as the others run it (refusal_join.cpp): the call
// the settling found, and on demand one rank's or every rank's published call (waits for them).
class PublishedSource {
 public:
  virtual ~PublishedSource() = default;
  virtual const observe::FoundCall& found() const = 0;
  virtual bool call_of(int rank, observe::FoundCall* out) = 0;
  virtual bool calls(std::vector<observe::BoardCall>* out) = 0;
};

class CollectiveDescription {
 public:
  virtual ~CollectiveDescription() = default;

  // Step 2: this rank's arguments (after check_comm and check_options). Records what the later
  // steps need (layouts, views). The first problem found, or ok.
  virtual ArgProblem check(CollectiveCall& call) = 0;
  // Step 2, for a problem with pattern_known: replaces this rank's buffers by stand-ins so that
  // it can take part harmlessly. False when it cannot (no identity of the op, say): then the
  // problem is refused without the pattern.
  virtual bool stand_in(CollectiveCall& call, const ArgProblem& problem) = 0;
  // Step 2, for a rank that refused: its arguments become the call as another rank published it
  // (after CollectiveCall::adopt_options), its buffers stand-ins of its own, and the checks are run
  // again on those. `refusal` is its own problem (scatterv/gatherv: the root sends it in its
  // broadcast). False, with *why, when the call cannot be run from what was published.
  virtual bool substitute(CollectiveCall& call, PublishedSource& source, const ArgProblem& refusal,
                          std::string* why) = 0;
  // Whose result holds this rank's data (after step 2).
  virtual DataReaders data_readers(const CollectiveCall& call) const = 0;
  // What this rank contributes when it takes part with stand-in data, for its message.
  virtual const char* stand_in_words(const CollectiveCall& call) const = 0;
  // Step 3.
  virtual CallDescriptor descriptor() const = 0;
  // Step 5: nothing to move on any rank.
  virtual bool moves_nothing() const = 0;
  // Step 6.
  virtual int agree(CollectiveCall&) { return PAPCOLL_SUCCESS; }
  // Step 9: a problem of the rank's own found only after the agreement (scatterv/gatherv: its
  // portion against the root's bytes for it), taken part in like the others.
  virtual const ArgProblem* late_problem() const { return nullptr; }
  virtual bool reads_arrivals() const { return false; }
  // The bytes every rank passes alike (the report's call key); -1: not known before the call.
  virtual long long agreed_bytes() const { return -1; }
  // Step 7: the facts of "auto" beyond the generator input (units, commutative, transport). The
  // request owns the arrivals while auto weighs them (base.arrivals); the driver takes them back
  // for the schedule, so the p-entry vector is never copied on the call path.
  virtual AutoRequest auto_request(const CollectiveCall& call, std::vector<double> arrivals);
  // The call must go to the MPI library whatever the algorithm (decided from agreed values).
  virtual bool needs_native() const { return false; }
  // Step 8.
  virtual int run_native(CollectiveCall& call) = 0;
  // p = 1 without a schedule; false: the description has no such shortcut (run the schedule
  // path, which handles p = 1 itself).
  virtual bool run_alone(CollectiveCall& call, int* rc) = 0;
  // The generator input for the algorithm (blocks included), arrivals as agreed.
  virtual GeneratorInput generator_input(const CollectiveCall& call, const AlgorithmInfo& algo,
                                         std::vector<double> arrivals) = 0;
  // This rank's schedule: obtain_schedule, or for the scatterv/gatherv trees obtain_sg_schedule.
  // `algo` is null only where choose_auto deferred the tree to the schedule source.
  virtual int obtain(CollectiveCall& call, const AlgorithmInfo* algo, std::vector<double> arrivals,
                     std::shared_ptr<const RankSchedule>* schedule, GeneratorInput* in);
  virtual MpiStatus execute(CollectiveCall& call, const RankSchedule& schedule,
                            const GeneratorInput& in) = 0;
};

// What a rank that erred in a call returns at its end, after taking part with stand-in data.
struct OwnError {
  int code = PAPCOLL_SUCCESS;
  std::string message;       // complete ("<who>: ...")
  bool local = true;         // fail_local: the others went on with papcoll (error.hpp)
  bool substituted = false;  // it refused and runs the call as another rank published it
  bool told = true;          // the ranks whose result holds its data were told (notify)
  bool ok() const { return code == PAPCOLL_SUCCESS; }
  int report() const;
};

// A rank refuses a call whose message pattern it cannot know (its count, datatype, root, op,
// algorithm or agreed arrivals are invalid), so it cannot take part with its own arguments. With
// PAPCOLL_CHECK=1 the refusal travels in the check's exchange and every rank returns. Otherwise,
// where the communicator has a call board (observe/call_board.hpp), the refusal is published
// there and settled (observe/refusal.hpp): the rank takes the call as another rank published it
// and runs that with stand-in data (substitute: *own says so, and the call goes on), or every
// rank refused alike; else the error is this rank's alone (docs/errors.md says which). The error
// is already recorded (papcoll_last_error()); `code` is returned when the call ends here.
// `checked`: the description's checks ran (its descriptor is valid).
int refuse_without_pattern(CollectiveCall& call, MPI_Comm comm, CollectiveDescription& d,
                           bool checked, int code, observe::CallWatch& watch, OwnError* own);

// Step 6 for a rank that takes part with stand-in data: tells the ranks whose result holds it.
void tell_data_readers(const CollectiveCall& call, const CollectiveDescription& d,
                       observe::CallWatch& watch, OwnError* own);

// A call that failed inside MPI (a truncated message, say): the message, recorded, gets what the
// ranks' published calls disagree on, when they do (observe/disagreement.hpp). Returns `code`.
int explain_mpi_failure(observe::CallWatch& watch, int code);

// Step 9: another rank told this one that its result holds stand-in data. PAPCOLL_ERR_PEER
// naming the ranks and their reasons (read from the board), or PAPCOLL_SUCCESS when no rank erred
// in this very call (the word was raised for a later one).
int peer_error(const CollectiveCall& call, observe::CallWatch& watch);

// Step 8 for a schedule: p = 1, the schedule and the executor (not the hot path).
int run_schedule(CollectiveCall& call, CollectiveDescription& d, const AlgorithmInfo* algo,
                 std::vector<double> arrivals);

// The entry time, read first thing by every entry point when something will read it: a monitor
// (the arrival history) or the report and the watchdog. Otherwise NaN, which saves a clock read
// (about 35 ns, 5 % of an 8-byte all-reduce at 2 ranks). The monitor field is in every options
// version.
inline double entry_clock(const papcoll_options* opt) {
  const bool monitor = opt != nullptr && opt->version >= 1 &&
                       opt->version <= PAPCOLL_OPTIONS_VERSION && opt->monitor != nullptr;
  return monitor || observe::g_watching_native ? prediction::steady_seconds() : NAN;
}

// Runs one call of `d` (the steps above). `who` names the entry point in messages. A template
// over the (final) description so that the hot path, a small call that goes to the MPI library,
// makes direct calls only: balanced 8-byte all-reduces must cost what MPI's do.
template <typename Description>
PAPCOLL_HOT int run_collective(const char* who, Collective c, Description& d,
                               const papcoll_options* opt, MPI_Comm comm, double entry_time) {
  CollectiveCall call(who, c);
  PAPCOLL_TRY(call.check_comm(comm));  // without a communicator nobody can be told anything
  // The first call on the communicator makes its board here, before anything can differ.
  observe::CallWatch watch(comm, static_cast<int>(c), entry_time, /*make_board=*/call.p() > 1);
  OwnError own;
  int rc = call.check_options(opt);
  ArgProblem problem = rc == PAPCOLL_SUCCESS ? d.check(call) : ArgProblem{};
  if (problem.ok() && call.has_arrivals_option()) [[unlikely]]
    problem = call.arrivals_problem(d.reads_arrivals());
  if (rc != PAPCOLL_SUCCESS ||
      (!problem.ok() && (!problem.pattern_known || !d.stand_in(call, problem)))) [[unlikely]] {
    if (rc == PAPCOLL_SUCCESS)
      rc = problem.pattern_known ? problem.report_local(call) : problem.report(call);
    rc = refuse_without_pattern(call, comm, d, problem.code != PAPCOLL_SUCCESS, rc, watch, &own);
    if (!own.substituted) return rc;
  } else if (!problem.ok()) [[unlikely]] {
    own.code = problem.report_local(call);
    own.message = papcoll_last_error();
    watch.stand_in(own.code, own.message.c_str());
  }
  if (watch.on()) observe_checked(watch, call, d, own);
  if (check_mode()) PAPCOLL_TRY(check_call(call, comm, d.descriptor(), PAPCOLL_SUCCESS));
  PAPCOLL_TRY(call.enter_monitor(comm, entry_time));

  // Steps 5 to 8.
  if (!d.moves_nothing()) {  // the same on every rank: no messages
    PAPCOLL_TRY(call.open_context(comm));
    // The interposition library's first call makes the observer here, and publishes the call.
    if (watch.attach(comm)) {
      observe_checked(watch, call, d, own);
      if (!own.ok()) watch.stand_in(own.code, own.message.c_str());
    }
    if (!own.ok()) [[unlikely]]
      tell_data_readers(call, d, watch, &own);
    PAPCOLL_TRY(d.agree(call));
    if (const ArgProblem* late = d.late_problem(); late != nullptr && !late->ok() && own.ok())
        [[unlikely]] {
      own.code = late->report_local(call);
      own.message = papcoll_last_error();
      watch.stand_in(own.code, own.message.c_str());
      tell_data_readers(call, d, watch, &own);
    }
    const Selection& sel = call.selection();
    // The arrival times live in the context's spare storage and go back there after the call.
    // "auto" first looks its remembered choices up in agreed ones that the checks found valid,
    // where the caller keeps them: they are copied only for a schedule or a choice not remembered
    // (at p = 1024 the copy was a tenth of a balanced call's path before the library's, in SMPI).
    std::vector<double> arrivals;
    bool took_spare = false;
    auto take_arrivals = [&] {
      arrivals.swap(call.context().arrivals_spare);
      took_spare = true;
      return call.arrivals(&arrivals);
    };
    const bool read_in_place = d.reads_arrivals() && sel.is_auto && call.agreed_arrivals_checked();
    if (d.reads_arrivals() && !read_in_place) PAPCOLL_TRY(take_arrivals());
    const AlgorithmInfo* algo = sel.algo;
    bool native = (!sel.is_auto && sel.algo == nullptr) || d.needs_native();
    AutoChoice choice;
    if (sel.is_auto && !native) {
      AutoRequest request = d.auto_request(call, std::move(arrivals));
      request.library = running_mpi_library();
      request.remembered = &call.context().remembered_choices;
      request.blocks_option = call.options().blocks;
      if (read_in_place)
        request.arrivals_view = {call.options().arrivals, static_cast<size_t>(call.p())};
      if (!read_in_place || !find_remembered_choice(c, request, &choice)) {
        if (read_in_place) {
          PAPCOLL_TRY(take_arrivals());
          request.base.arrivals = std::move(arrivals);
          request.arrivals_view = {};
        }
        choice = choose_auto(c, request);
      }
      algo = choice.algo;
      native = choice.native;
      arrivals = std::move(request.base.arrivals);
    }
    call.note_algorithm(native ? nullptr : algo);
    if (watch.on()) observe_ready(watch, call, native ? nullptr : algo, choice);
    int ran = PAPCOLL_SUCCESS;
    if (native) {
      CollectiveCall::record_algorithm(nullptr);
      ran = d.run_native(call);
      if (took_spare) call.context().arrivals_spare = std::move(arrivals);
    } else {
      if (read_in_place && !took_spare) PAPCOLL_TRY(take_arrivals());
      ran = run_schedule(call, d, algo, std::move(arrivals));
    }
    if (ran != PAPCOLL_SUCCESS) [[unlikely]]
      return ran == PAPCOLL_ERR_MPI ? explain_mpi_failure(watch, ran) : ran;
  }
  // A rank that took part with stand-ins: its own error. The others: whether one of them did.
  if (!own.ok()) [[unlikely]]
    return own.report();
  if (watch.peer_failed()) [[unlikely]]
    return peer_error(call, watch);
  return PAPCOLL_SUCCESS;
}

}  // namespace papcoll
