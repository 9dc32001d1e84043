// Monitor handles under misuse and concurrency (run under ASan and TSan by scripts/test.sh):
//   - papcoll_monitor_free while another thread is inside a collective that uses the monitor: the
//     free waits for the call, the call completes with the right result, the free succeeds;
//   - the same when the free races with the call's start, so that on some ranks it comes before
//     the call takes the monitor and on others after (the program cannot tell; docs/prediction.md
//     "Freeing a monitor"): the ranks agree on how many calls the monitor serves, so the call
//     completes everywhere; and a call issued on every rank only after every free returned is
//     refused everywhere alike;
//   - papcoll_monitor_free while another thread keeps calling begin/edge/pattern: those calls
//     either run before the free or return PAPCOLL_ERR_ARG "was freed";
//   - two threads freeing the same monitor at once: exactly one succeeds;
//   - a stale copy of a freed handle, and values that never were handles, give PAPCOLL_ERR_ARG
//     from every entry point and from a collective, without reading freed or foreign memory.
#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "mpi_check.hpp"
#include "papcoll/papcoll.h"
#include "prediction/monitor.hpp"
#include "test_monitor_util.hpp"

using namespace papcoll_test;

namespace {

papcoll_monitor make(Checker& chk, int mode) {
  papcoll_monitor_config cfg;
  papcoll_monitor_config_init(&cfg);
  cfg.mode = mode;
  cfg.sync_samples = 2;
  papcoll_monitor m = nullptr;
  chk.expect_success(papcoll_monitor_create_config(MPI_COMM_WORLD, &cfg, &m), "create");
  return m;
}

bool says(const char* needle) { return std::strstr(papcoll_last_error(), needle) != nullptr; }

// Thread A runs a collective with the monitor (rank 0 arrives late, so the others wait inside
// it); the main thread frees the monitor as soon as A holds it. Returns whether the free really
// overlapped the call on this rank.
bool free_during_collective(Checker& chk, int mode, int iteration) {
  const int rank = chk.rank(), p = chk.size();
  papcoll_monitor m = make(chk, mode);
  if (m == nullptr) return false;
  std::atomic<bool> calling{false}, returned{false};
  int call_rc = -1;
  bool call_right = false;
  std::string call_error;
  std::thread a([&] {
    papcoll_monitor_begin(m);
    papcoll_monitor_edge(m, 0.5);
    if (rank == 0) sleep_ms(30);
    const int n = 1000 + iteration;
    std::vector<int> in(static_cast<size_t>(n), rank + 1), out(static_cast<size_t>(n), -1);
    papcoll_options o;
    papcoll_options_init(&o);
    o.monitor = m;
    o.algorithm = iteration % 2 ? "prr" : "ring";
    calling = true;
    call_rc = papcoll_allreduce(in.data(), out.data(), n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &o);
    if (call_rc != PAPCOLL_SUCCESS) call_error = papcoll_last_error();
    call_right = true;
    for (int x : out) call_right = call_right && x == p * (p + 1) / 2;
    returned = true;
  });
  bool overlapped = false;
  while (!returned) {
    if (calling && papcoll::prediction::monitor_calls_in_flight(m) > 0) {
      overlapped = !returned;
      break;
    }
    std::this_thread::yield();
  }
  papcoll_monitor handle = m;
  const int free_rc = papcoll_monitor_free(&handle);
  a.join();
  const std::string what = std::string(mode == PAPCOLL_MONITOR_EDGE ? "edge" : "history") +
                           " iteration " + std::to_string(iteration);
  chk.expect(call_rc == PAPCOLL_SUCCESS && call_right,
             what + ": the collective inside the monitor: rc " + std::to_string(call_rc) + " " +
                 call_error + (call_right ? "" : ", wrong result"));
  chk.expect_success(free_rc, what + ": free during the collective");
  chk.expect(handle == nullptr, what + ": handle NULL after free");
  return overlapped;
}

// Thread A starts a collective with the monitor while the main thread frees it at once, without
// waiting for A to be inside (`stagger`: rank r's A starts r * 2 ms late, so the free comes first
// on some ranks and after the call's start on others). Every rank alike: the call completes with
// the right result, or (when no rank's call had started before the frees agreed) it is refused
// with "was freed". Returns whether the call ran.
bool free_racing_call(Checker& chk, int mode, int iteration, double stagger_ms) {
  const int rank = chk.rank(), p = chk.size();
  papcoll_monitor m = make(chk, mode);
  if (m == nullptr) return false;
  std::atomic<bool> started{false};
  int call_rc = -1;
  bool call_right = false;
  std::string call_error;
  std::thread a([&] {
    started = true;
    sleep_ms(stagger_ms * rank);
    const int n = 500 + iteration;
    std::vector<int> in(static_cast<size_t>(n), rank + 1), out(static_cast<size_t>(n), -1);
    papcoll_options o;
    papcoll_options_init(&o);
    o.monitor = m;
    o.algorithm = iteration % 3 == 0 ? "prr" : iteration % 3 == 1 ? "ring" : "auto";
    call_rc = papcoll_allreduce(in.data(), out.data(), n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &o);
    if (call_rc != PAPCOLL_SUCCESS) call_error = papcoll_last_error();
    call_right = true;
    for (int x : out) call_right = call_right && x == p * (p + 1) / 2;
  });
  while (!started) std::this_thread::yield();
  papcoll_monitor handle = m;
  const int free_rc = papcoll_monitor_free(&handle);
  a.join();
  const std::string what = std::string(mode == PAPCOLL_MONITOR_EDGE ? "edge" : "history") +
                           " racing free " + std::to_string(iteration) + " (stagger " +
                           std::to_string(stagger_ms) + " ms)";
  const int ran = call_rc == PAPCOLL_SUCCESS ? 1 : 0;
  int ran_everywhere = 0, ran_somewhere = 0;
  MPI_Allreduce(&ran, &ran_everywhere, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&ran, &ran_somewhere, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  const bool refused = call_rc == PAPCOLL_ERR_ARG &&
                       call_error.find("was freed") != std::string::npos;
  chk.expect(ran_everywhere == ran_somewhere && (ran ? call_right : refused),
             what + ": the collective, alike on every rank (ran on some: " +
                 std::to_string(ran_somewhere) + ", on all: " + std::to_string(ran_everywhere) +
                 "): rc " + std::to_string(call_rc) + " " + call_error +
                 (ran && !call_right ? ", wrong result" : ""));
  chk.expect_success(free_rc, what + ": the free");
  return ran_everywhere == 1;
}

// Every rank frees the monitor, then (after a barrier) calls a collective naming it: refused on
// every rank alike, and nobody waits.
void call_after_free(Checker& chk) {
  papcoll_monitor m = make(chk, PAPCOLL_MONITOR_EDGE);
  if (m == nullptr) return;
  papcoll_monitor handle = m;
  chk.expect_success(papcoll_monitor_free(&handle), "free before the call");
  MPI_Barrier(MPI_COMM_WORLD);
  int x = 1, y = 0;
  papcoll_options o;
  papcoll_options_init(&o);
  o.monitor = m;
  const int rc = papcoll_allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &o);
  chk.expect(rc == PAPCOLL_ERR_ARG && says("was freed"),
             "a call after every rank freed the monitor: PAPCOLL_ERR_ARG 'was freed' (rc " +
                 std::to_string(rc) + ": " + papcoll_last_error() + ")");
}

// Thread C calls begin/edge/pattern in a loop until the monitor is gone; the main thread frees it.
void free_during_calls(Checker& chk) {
  papcoll_monitor m = make(chk, PAPCOLL_MONITOR_EDGE);
  if (m == nullptr) return;
  const int p = chk.size();
  std::atomic<int> calls{0};
  int last_rc = PAPCOLL_SUCCESS;
  bool freed_message = false, other_failure = false;
  std::thread c([&] {
    std::vector<double> pat(static_cast<size_t>(p));
    for (;;) {
      int rc = papcoll_monitor_begin(m);
      if (rc == PAPCOLL_SUCCESS) rc = papcoll_monitor_edge(m, 0.5);
      if (rc == PAPCOLL_SUCCESS) rc = papcoll_monitor_pattern(m, pat.data(), p, nullptr);
      ++calls;
      if (rc != PAPCOLL_SUCCESS) {
        last_rc = rc;
        freed_message = says("was freed");
        other_failure = rc != PAPCOLL_ERR_ARG;
        return;
      }
    }
  });
  while (calls < 20) std::this_thread::yield();
  papcoll_monitor handle = m;
  chk.expect_success(papcoll_monitor_free(&handle), "free while another thread calls begin/edge");
  c.join();
  chk.expect(last_rc == PAPCOLL_ERR_ARG && freed_message && !other_failure,
             "begin/edge/pattern after the free: PAPCOLL_ERR_ARG 'was freed' (rc " +
                 std::to_string(last_rc) + ")");
}

// Two threads free the same monitor (each through its own copy of the handle) at once.
void double_free_race(Checker& chk) {
  papcoll_monitor m = make(chk, PAPCOLL_MONITOR_EDGE);
  if (m == nullptr) return;
  papcoll_monitor h1 = m, h2 = m;
  int rc1 = -1, rc2 = -1;
  std::atomic<bool> go{false};
  std::thread t([&] {
    while (!go) std::this_thread::yield();
    rc2 = papcoll_monitor_free(&h2);
  });
  go = true;
  rc1 = papcoll_monitor_free(&h1);
  t.join();
  const int ok = (rc1 == PAPCOLL_SUCCESS) + (rc2 == PAPCOLL_SUCCESS);
  const int arg = (rc1 == PAPCOLL_ERR_ARG) + (rc2 == PAPCOLL_ERR_ARG);
  chk.expect(ok == 1 && arg == 1, "two concurrent frees: one succeeds, one PAPCOLL_ERR_ARG (" +
                                      std::to_string(rc1) + ", " + std::to_string(rc2) + ")");
}

// Every entry point with handle h returns PAPCOLL_ERR_ARG whose message contains `why`.
void refused_everywhere(Checker& chk, papcoll_monitor h, const char* why, const std::string& what) {
  const int p = chk.size();
  std::vector<double> pat(static_cast<size_t>(p));
  struct Call {
    const char* name;
    int rc;
    bool message;
  };
  std::vector<Call> calls;
  int rc = papcoll_monitor_begin(h);
  calls.push_back({"begin", rc, says(why)});
  rc = papcoll_monitor_edge(h, 0.5);
  calls.push_back({"edge", rc, says(why)});
  rc = papcoll_monitor_pattern(h, pat.data(), p, nullptr);
  calls.push_back({"pattern", rc, says(why)});
  rc = papcoll_monitor_test_inject(h, 1.0);
  calls.push_back({"test_inject", rc, says(why)});
  int x = 1, y = 0;
  papcoll_options o;
  papcoll_options_init(&o);
  o.monitor = h;
  rc = papcoll_allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &o);
  calls.push_back({"allreduce", rc, says(why)});
  rc = papcoll_bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD, &o);
  calls.push_back({"bcast", rc, says(why)});
  papcoll_monitor copy = h;
  rc = papcoll_monitor_free(&copy);
  calls.push_back({"free", rc, says(why)});
  for (const Call& c : calls)
    chk.expect(c.rc == PAPCOLL_ERR_ARG && c.message,
               what + ": " + c.name + " returned " + std::to_string(c.rc) + ", expected " +
                   "PAPCOLL_ERR_ARG mentioning '" + why + "'");
}

void stale_and_garbage(Checker& chk) {
  papcoll_monitor m = make(chk, PAPCOLL_MONITOR_EDGE);
  if (m == nullptr) return;
  const papcoll_monitor stale = m;
  chk.expect_success(papcoll_monitor_free(&m), "free");
  refused_everywhere(chk, stale, "was freed", "stale handle");
  // A new monitor may reuse the slot: the stale handle must still be refused, the new one work.
  papcoll_monitor fresh = make(chk, PAPCOLL_MONITOR_HISTORY);
  refused_everywhere(chk, stale, "was freed", "stale handle after a new monitor");
  chk.expect_success(papcoll_monitor_begin(fresh), "the new monitor works");
  chk.expect_success(papcoll_monitor_free(&fresh), "free the new monitor");
  // Values that never were handles: small integers, a wild pointer, the address of memory that
  // holds the old handle layout (magic number and pointer). None may be dereferenced.
  std::uint64_t fake[2] = {0x706170636d6f6e31ULL, 0};
  for (papcoll_monitor g :
       {reinterpret_cast<papcoll_monitor>(std::uintptr_t{1}),
        reinterpret_cast<papcoll_monitor>(std::uintptr_t{0xdeadbeefcafef00dULL}),
        reinterpret_cast<papcoll_monitor>(fake)})
    refused_everywhere(chk, g, "not a monitor", "garbage handle");
  papcoll_monitor null_handle = nullptr;
  chk.expect_code(papcoll_monitor_free(&null_handle), PAPCOLL_ERR_ARG, "free of a NULL handle");
  chk.expect_code(papcoll_monitor_free(nullptr), PAPCOLL_ERR_ARG, "free(NULL)");
}

}  // namespace

int main(int argc, char** argv) {
  if (init_multiple(&argc, &argv) < MPI_THREAD_MULTIPLE) {
    std::printf("test_monitor_concurrent_free: MPI_THREAD_MULTIPLE not provided, skipped\n");
    MPI_Finalize();
    return 0;
  }
  int code = 0;
  {
    Checker chk("test_monitor_concurrent_free");
    int overlapped = 0;
    for (int i = 0; i < 10; ++i) {
      overlapped += free_during_collective(chk, PAPCOLL_MONITOR_EDGE, i);
      overlapped += free_during_collective(chk, PAPCOLL_MONITOR_HISTORY, i);
    }
    // Ranks other than 0 wait inside the call for rank 0, so their frees overlap it.
    int total = 0;
    MPI_Allreduce(&overlapped, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    chk.expect(chk.size() == 1 || total > 0,
               "some frees overlapped a collective (" + std::to_string(total) + ")");
    int served = 0;
    for (int i = 0; i < 6; ++i) {
      served += free_racing_call(chk, PAPCOLL_MONITOR_EDGE, i, i % 2 ? 2.0 : 0.0);
      served += free_racing_call(chk, PAPCOLL_MONITOR_HISTORY, i, i % 2 ? 0.0 : 2.0);
    }
    std::printf(
        "%s", chk.rank() == 0
                  ? ("racing frees: the call ran in " + std::to_string(served) + " of 12\n").c_str()
                  : "");
    call_after_free(chk);
    for (int i = 0; i < 3; ++i) free_during_calls(chk);
    for (int i = 0; i < 3; ++i) double_free_race(chk);
    stale_and_garbage(chk);
    const papcoll::prediction::DebugCounters c = papcoll::prediction::debug_counters();
    chk.expect(c.monitors == 0 && c.threads == 0 && c.comms == 0 && c.requests == 0,
               "no live monitor, thread, communicator or request at the end");
    code = chk.finish();
  }
  MPI_Finalize();
  return code;
}
