// The interposition library's part in the report and the watchdog (docs/intercept.md): calls
// that go straight to the MPI library (an operation set to native, a call papcoll refused on
// every rank, a link model that failed) are observed like papcoll's own when PAPCOLL_REPORT or
// PAPCOLL_TIMEOUT is set, so the report and the watchdog cover every intercepted collective.
// Kept apart from intercept.cpp's dispatch, which only calls observed_native().
#pragma once

#include <mpi.h>

#include <atomic>
#include <cmath>
#include <cstdint>

#include "intercept/intercept_config.hpp"
#include "intercept/intercept_quick.hpp"
#include "observe/call_watch.hpp"
#include "observe/comm_observer.hpp"
#include "observe/observe_config.hpp"
#include "observe/watchdog.hpp"
#include "prediction/monitor.hpp"

namespace papcoll::intercept {

// The report's name (one address, compared in add_repeat; internal: no GOT load).
static constexpr char kNativeName[] = "native";

// This thread's observe::t_cache, read through initial-exec TLS: the library is loaded at
// start-up (LD_PRELOAD or linked), so this costs no __tls_get_addr after the first call.
__attribute__((tls_model(
    "initial-exec"))) inline constinit thread_local observe::ThreadCache* t_observe_cache = nullptr;

inline observe::ThreadCache& observe_cache() {
  observe::ThreadCache* c = t_observe_cache;
  if (c == nullptr) [[unlikely]]
    c = t_observe_cache = &observe::thread_cache();
  return *c;
}

// The board's record of a call handed to the MPI library (what the watchdog compares with the
// calls of ranks that went through papcoll: an algorithm named on one rank only, say).
inline observe::BoardCall native_call(int collective, int root) {
  observe::BoardCall c{};
  c.collective = collective;
  c.flags = observe::kCallMpiOnly;
  c.units = c.count = -1;
  c.type = c.unit_type = c.op = -1;
  c.root = root;
  c.algorithm = observe::kAlgorithmNative;
  return c;
}

[[gnu::noinline]] inline void publish_native(observe::CommObserver& o, std::uint64_t seq,
                                             int collective, int root) {
  if (!o.board.extend_mpi_call(seq, collective, root))
    o.board.publish(seq, native_call(collective, root), nullptr, nullptr);
}

// `agreed_bytes`: what every rank passes alike (-1: not known), `root` (-1: none).
template <typename RunNative>
int observed_native(Operation op, MPI_Comm comm, long long agreed_bytes, int root,
                    RunNative run_native) {
  if (!g_observing) return run_native();
  observe::ThreadCache& cache = observe_cache();
  if (cache.unobserved != 0) return run_native();  // an Unobserved scope
  const int collective = static_cast<int>(op);
  const observe::CallKey key{collective, agreed_bytes, root};
  // The steady state of a loop (docs/report-format.md "Cost"): the observer exists and the report,
  // if on, only counts this call. The board's entry and exit and the count, inline; what CallWatch
  // does for such a call, without its general steps.
  // A loop of a few keys (an all-reduce and a broadcast, say) finds the call's template among
  // the report's older ones (other_repeat, out of line: only when the latest differs; it
  // counts the call itself). The calls such a loop's log keeps (one in 2^level: every call of a
  // key's first PAPCOLL_REPORT_SAMPLES, then a share that halves each time the log fills) are
  // timed here too: two clock reads and ReportRecord::log_repeat.
  if (observe::CommObserver* obs = observe::find_observer(comm, cache); obs != nullptr) {
    // The observer's first cache line alone (comm_observer.hpp): the mirror of the report's
    // latest template takes the call, or, with the report off, the last call's key.
    if (obs->quick.takes(key, obs->seq + 1)) [[likely]] {
      const std::uint64_t seq = ++obs->seq;
      ++obs->quick.count;
      observe::BoardSlot* const slot = obs->slot;
      if (slot != nullptr) {
        observe::Board::enter(slot, seq, NAN, collective);
        // The loop's call, published by its first call.
        if (!obs->board.extend_mpi_call(seq, collective, root)) [[unlikely]]
          publish_native(*obs, seq, collective, root);
      }
      const int rc = run_native();
      if (slot != nullptr) observe::Board::leave(slot, seq);
      if (obs->warned_seq.load(std::memory_order_relaxed) == seq) [[unlikely]]
        observe::call_completed(*obs, seq);
      return rc;
    }
    using Repeat = observe::ReportRecord::Repeat;
    constexpr observe::AutoReason named = observe::AutoReason::named;
    observe::ReportRecord* const report = obs->report;
    const bool latest = report == nullptr ||
                        report->quiet_repeat(key, kNativeName, named, obs->seq + 1);
    Repeat repeat = Repeat::counted;
    if (!latest) {
      repeat = report->timed_repeat(key, kNativeName, named, obs->seq + 1)
                   ? Repeat::timed
                   : report->other_repeat(key, kNativeName, named, obs->seq + 1);
    }
    if (repeat == Repeat::counted) {
      const std::uint64_t seq = ++obs->seq;
      const bool board = obs->board.is_open();
      if (board) {
        obs->board.enter(seq, NAN, collective);
        publish_native(*obs, seq, collective, root);
      }
      const int rc = run_native();
      if (board) obs->board.leave(seq);
      if (obs->warned_seq.load(std::memory_order_relaxed) == seq) [[unlikely]]
        observe::call_completed(*obs, seq);
      if (latest) {
        if (report != nullptr)
          report->count_and_arm(key);
        else
          obs->quick.arm(key, ~std::uint64_t{0});
      }
      return rc;
    }
    if (repeat == Repeat::timed) {
      const std::uint64_t seq = ++obs->seq;
      const double entry = prediction::steady_seconds();
      const bool board = obs->board.is_open();
      if (board) {
        obs->board.enter(seq, entry, collective);
        publish_native(*obs, seq, collective, root);
      }
      const int rc = run_native();
      const double seconds = prediction::steady_seconds() - entry;
      if (board) obs->board.leave(seq);
      if (obs->warned_seq.load(std::memory_order_relaxed) == seq) [[unlikely]]
        observe::call_completed(*obs, seq);
      report->log_repeat(key, kNativeName, named, seq, entry, seconds);
      return rc;
    }
  }
  if (comm == MPI_COMM_NULL) return run_native();  // (find_observer gives null for it)
  // No clock read here: the report reads one only for the calls it samples (report_record.hpp),
  // and the watchdog times a call from when it first sees it.
  observe::CallWatch watch(comm, collective, NAN);
  if (watch.unattached()) {  // an observer is only ever made for an intra-communicator
    int inter = 0;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter) {
      watch.forget();
      return run_native();
    }
  }
  watch.attach(comm);  // the first call on the communicator makes its observer (collective)
  watch.set_key(key.bytes, root);
  watch.publish(native_call(collective, root));
  watch.read_entry();
  watch.ran(kNativeName, observe::AutoReason::named, NAN);
  return run_native();
}

}  // namespace papcoll::intercept
