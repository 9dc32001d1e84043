// One driver for the six entry points: the order of a call's steps lives here, once; each
// collective is a description (CollectiveDescription) of what is its own: its argument and buffer
// rules, MPI_IN_PLACE, its stand-in data, its generator input and its executor wrapper.
//
// The steps (run_collective):
//  1. The communicator, then the options and the algorithm name (CollectiveCall).
//  2. The description's argument checks. A problem is handled where it is seen, on one rank:
//     - the rank still knows the call's message pattern (only a buffer is NULL or aliased):
//       it takes part with stand-in data (scratch memory; for reductions the op's identity) and
//       returns its error after the communication, so no other rank waits for it forever and
//       nothing the user passed is written (describe(): stand_in);
//     - it does not (a negative count, MPI_DATATYPE_NULL, an unknown algorithm, a root out of
//       range, MPI_OP_NULL): refuse_without_pattern, the one place such refusals go; through the
//       call board it takes part in the others' call with stand-in data where it can read
//       their descriptor (observe/refusal.hpp).
//     The call board and the report see every call through one scope, observe::CallWatch
//     (api/call_observe.hpp): numbered after the communicator check, its descriptor published
//     right before its messages (or "not joinable" before the first one), recorded at the end.
//  3. PAPCOLL_CHECK=1 only: every rank's descriptor is compared (call_check.hpp).
//  4. The monitor's call step: the first communication of a call that passed its checks.
//  5. Nothing to move on any rank (decided from values every rank agrees on): done.
//  6. The communicator's context, the description's agreement step (scatterv/gatherv: the root's
//     broadcast), the agreed arrival vector where the algorithm or "auto" reads one.
//  7. The algorithm: the caller's, or "auto" through the one seam choose_auto (selection.hpp).
//  8. "native": the MPI library's collective; p = 1: the local copy; else the schedule
//     (schedule_source.hpp, the one place schedules come from) and the executor.
//  9. The rank's own deferred problem, if any.
//
// Blocks are split in units every rank agrees on (datatype_layout.hpp DataView), never in a
// rank's own element count, which MPI lets differ between ranks with matching type signatures.
#pragma once

#include <mpi.h>

#include <cmath>
#include <memory>
#include <vector>

#include "api/call_check.hpp"
#include "api/call_observe.hpp"
#include "api/collective_call.hpp"
#include "api/mpi_library.hpp"
#include "executor/comm_context.hpp"
#include "observe/call_watch.hpp"
#include "select/selection.hpp"

namespace papcoll {

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
  // Step 7: the facts of "auto" beyond the generator input (units, commutative, transport).
  virtual AutoRequest auto_request(const CollectiveCall& call,
                                   const std::vector<double>& arrivals);
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

// A rank refuses a call whose message pattern it cannot know (its count, datatype, root, op or
// algorithm is invalid), so it cannot take part with its own arguments. With PAPCOLL_CHECK=1 the
// refusal travels in the check's exchange and every rank returns. Otherwise, where the
// communicator has a call board (observe/call_board.hpp), the refusal is published there and
// settled (observe/refusal.hpp): the rank runs the other ranks' call with stand-in data when it
// can read their descriptor (api/refusal_join.cpp), or every rank refused alike; else the error
// is this rank's alone (docs/errors.md says which). The error is already recorded
// (papcoll_last_error()); `code` is returned.
int refuse_without_pattern(CollectiveCall& call, MPI_Comm comm, CollectiveDescription* d,
                           int code, observe::CallWatch& watch);

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
int run_collective(const char* who, Collective c, Description& d, const papcoll_options* opt,
                   MPI_Comm comm, double entry_time) {
  CollectiveCall call(who, c);
  PAPCOLL_TRY(call.check_comm(comm));  // without a communicator nobody can be told anything
  observe::CallWatch watch(comm, static_cast<int>(c), entry_time);
  if (int rc = call.check_options(opt); rc != PAPCOLL_SUCCESS)
    return refuse_without_pattern(call, comm, nullptr, rc, watch);
  const ArgProblem problem = d.check(call);
  if (!problem.ok() && (!problem.pattern_known || !d.stand_in(call, problem)))
    return refuse_without_pattern(
        call, comm, &d, problem.pattern_known ? problem.report_local(call) : problem.report(call),
        watch);
  if (watch.on()) observe_checked(watch, call, d);
  if (check_mode()) PAPCOLL_TRY(check_call(call, comm, d.descriptor(), PAPCOLL_SUCCESS));
  PAPCOLL_TRY(call.enter_monitor(comm, entry_time));

  // Steps 5 to 8.
  if (!d.moves_nothing()) {  // the same on every rank: no messages
    PAPCOLL_TRY(call.open_context(comm));
    watch.attach(comm);  // the first call makes the communicator's observer (collective)
    PAPCOLL_TRY(d.agree(call));
    std::vector<double> arrivals;
    if (d.reads_arrivals()) PAPCOLL_TRY(call.arrivals(&arrivals));
    const Selection& sel = call.selection();
    const AlgorithmInfo* algo = sel.algo;
    bool native = (!sel.is_auto && sel.algo == nullptr) || d.needs_native();
    AutoChoice choice;
    if (sel.is_auto && !native) {
      AutoRequest request = d.auto_request(call, arrivals);
      request.library = running_mpi_library();
      choice = choose_auto(c, request);
      algo = choice.algo;
      native = choice.native;
    }
    call.note_algorithm(native ? nullptr : algo);
    if (watch.on()) observe_ready(watch, call, d, native ? nullptr : algo, choice);
    if (native) {
      CollectiveCall::record_algorithm(nullptr);
      PAPCOLL_TRY(d.run_native(call));
    } else {
      PAPCOLL_TRY(run_schedule(call, d, algo, std::move(arrivals)));
    }
  }
  // A rank that took part with stand-ins: the others completed normally and cannot see this.
  if (!problem.ok()) return problem.report_local(call);
  if (const ArgProblem* late = d.late_problem(); late != nullptr && !late->ok())
    return late->report_local(call);
  return PAPCOLL_SUCCESS;
}

}  // namespace papcoll
