#include "observe/watchdog.hpp"

#include <mpi.h>

#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "observe/comm_observer.hpp"
#include "observe/disagreement.hpp"
#include "observe/observe_config.hpp"
#include "prediction/monitor.hpp"
#include "schedule/schedule.hpp"

namespace papcoll::observe {
namespace {

std::mutex g_watchdog_mutex;
std::condition_variable g_cv;
// Never destroyed: a program that ends without MPI_Finalize (which joins it) must not meet a
// joinable std::thread's destructor (std::terminate) on its way out.
std::thread* g_thread = nullptr;
bool g_started = false, g_stop = false;

std::string fmt(const char* f, double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, x);
  return buf;
}

std::string who(const BoardSlot& s, int rank) {
  std::string out = "rank " + std::to_string(rank);
  if (s.world_rank != rank || s.host[0] != '\0') {
    out += " (world rank " + std::to_string(s.world_rank);
    if (s.host[0] != '\0') out += " on " + std::string(s.host, strnlen(s.host, sizeof s.host));
    out += ")";
  }
  return out;
}

// The rank is in call `seq` past the timeout: who is not there? Prints the line when this rank
// is the lowest one in the call. True when it printed.
bool inspect(CommObserver& o, std::uint64_t seq, int collective, double waited, bool can_get) {
  std::vector<std::string> missing, refused, unknown;
  // The call as every rank that got to it published it: what they disagree on.
  std::vector<BoardCall> calls(static_cast<size_t>(o.size));
  std::vector<const BoardCall*> published(static_cast<size_t>(o.size), nullptr);
  auto note_call = [&](const BoardSlot& s, int q) {
    BoardCall& c = calls[static_cast<size_t>(q)];
    if (Board::call(s, seq, &c) && (c.flags & kCallRefused) == 0)
      published[static_cast<size_t>(q)] = &c;
  };
  if (BoardSlot own; o.board.read(o.rank, &own)) note_call(own, o.rank);
  int lowest_arrived = o.rank;
  for (int q = 0; q < o.size; ++q) {
    if (q == o.rank) continue;
    BoardSlot s;
    const bool got = o.board.shared() ? o.board.read(q, &s)
                                      : can_get && o.board.read_within(q, &s, 0.25);
    if (!got) {
      unknown.push_back("rank " + std::to_string(q));
      continue;
    }
    note_call(s, q);
    const std::uint64_t qs = word_seq(s.word);
    const CallState st = word_state(s.word);
    if (qs < seq) {
      std::string m = who(s, q);
      m += qs == 0 ? ", no call yet" : ", last in call " + std::to_string(qs);
      missing.push_back(m);
    } else {
      if (q < lowest_arrived) lowest_arrived = q;
      if (qs == seq && st == CallState::refused) {
        const BoardProblem* pr = Board::problem(s, seq);
        refused.push_back(who(s, q) + ": " +
                          (pr != nullptr
                               ? std::string(pr->message, strnlen(pr->message, sizeof pr->message))
                               : std::string("(no message)")));
      }
    }
  }
  if (lowest_arrived != o.rank) return false;
  const std::string disagree = disagreement(published);
  std::string line =
      "papcoll watchdog: " + o.label + " (" + std::to_string(o.size) + " ranks), call " +
      std::to_string(seq) + " (" + collective_label(collective, "collective") + "): rank " +
      std::to_string(o.rank) + " has waited " + fmt("%.2f", waited) + " s; not arrived: ";
  if (missing.empty()) line += "none";
  for (size_t i = 0; i < missing.size(); ++i) line += (i ? "; " : "") + missing[i];
  if (!refused.empty()) {
    line += "; refused the call: ";
    for (size_t i = 0; i < refused.size(); ++i) line += (i ? "; " : "") + refused[i];
  }
  if (!disagree.empty()) line += "; the ranks disagree on the " + disagree;
  if (!unknown.empty()) {
    line += "; not readable (" +
            std::string(can_get ? "no answer within 0.25 s: not inside MPI"
                                : "the board spans nodes and MPI_THREAD_MULTIPLE is not provided") +
            "): ";
    for (size_t i = 0; i < unknown.size(); ++i) line += (i ? ", " : "") + unknown[i];
  }
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
  return true;
}

// The call the watchdog spoke about is over (under the registry's lock).
void completed_locked(CommObserver& o, double now) {
  const std::uint64_t warned = o.warned_seq.load(std::memory_order_relaxed);
  if (warned == 0) return;
  if (o.printed)
    std::fprintf(stderr, "papcoll watchdog: %s, call %llu completed after %.2f s\n",
                 o.label.c_str(), static_cast<unsigned long long>(warned), now - o.warned_entry);
  std::fflush(stderr);
  o.warned_seq.store(0, std::memory_order_relaxed);
  o.printed = false;
}

void scan(bool can_get) {
  const double timeout = config().timeout;
  const double now = prediction::steady_seconds();
  bool abort_now = false;
  std::string abort_where;
  RegistryLock lock;
  for (CommObserver* o : live_observers()) {
    if (o->closed || !o->board.is_open()) continue;
    const std::uint64_t w = o->board.own_word();
    const std::uint64_t seq = word_seq(w);
    const CallState st = word_state(w);
    const bool waiting = st != CallState::idle;
    if (w != o->seen_word) {
      o->seen_word = w;
      o->seen_since = now;
    }
    const std::uint64_t warned = o->warned_seq.load(std::memory_order_relaxed);
    if (warned != 0 && (seq != warned || !waiting)) completed_locked(*o, now);
    if (!waiting || seq == 0 || seq == o->warned_seq.load(std::memory_order_relaxed)) {
      // Abort also from a rank that did not print, as a fallback, a second after the timeout.
      if (config().abort && waiting && seq != 0 && !o->printed &&
          seq == o->warned_seq.load(std::memory_order_relaxed) &&
          now - o->warned_entry > timeout + 1.0) {
        abort_now = true;
        abort_where = o->label + " call " + std::to_string(seq);
      }
      continue;
    }
    double entry = o->board.own_entry();
    if (!std::isfinite(entry)) entry = o->seen_since;
    const double waited = now - entry;
    if (waited < timeout) continue;
    o->warned_entry = entry;
    BoardSlot own;
    o->board.read(o->rank, &own);
    o->printed = inspect(*o, seq, own.collective, waited, can_get);
    o->warned_seq.store(seq, std::memory_order_relaxed);
    if (o->printed && config().abort) {
      abort_now = true;
      abort_where = o->label + " call " + std::to_string(seq);
    }
  }
  if (abort_now) {
    std::fprintf(stderr,
                 "papcoll watchdog: PAPCOLL_TIMEOUT_ACTION=abort: calling MPI_Abort (%s waited "
                 "more than PAPCOLL_TIMEOUT=%g s)\n",
                 abort_where.c_str(), timeout);
    std::fflush(stderr);
    PMPI_Abort(MPI_COMM_WORLD, 1);
  }
}

void thread_main() {
  int provided = MPI_THREAD_SINGLE;
  PMPI_Query_thread(&provided);
  const bool can_get = provided == MPI_THREAD_MULTIPLE;
  // A few looks per timeout, at least every 0.25 s (every second for timeouts of a minute and
  // more, the default's): the line comes within timeout + 0.25 s (+ 1 s).
  const double timeout = config().timeout;
  const double period = std::clamp(timeout / 8, 0.01, timeout >= 60 ? 1.0 : 0.25);
  std::unique_lock<std::mutex> lock(g_watchdog_mutex);
  while (!g_stop) {
    g_cv.wait_for(lock, std::chrono::duration<double>(period));
    if (g_stop) break;
    lock.unlock();
    scan(can_get);
    lock.lock();
  }
}

}  // namespace

void start_watchdog() {
#ifndef PAPCOLL_SMPI
  std::lock_guard<std::mutex> lock(g_watchdog_mutex);
  if (g_started) return;
  g_started = true;
  g_thread = new std::thread(thread_main);
  // A program that exits without MPI_Finalize (an error path calling exit()): the thread stops
  // before the static objects it reads are destroyed (handlers registered later run earlier).
  std::atexit([] { stop_watchdog(); });
#endif
}

void call_completed(CommObserver& o, std::uint64_t seq) {
  const double now = prediction::steady_seconds();
  RegistryLock lock;
  if (o.warned_seq.load(std::memory_order_relaxed) == seq) completed_locked(o, now);
}

void stop_watchdog() {
  {
    std::lock_guard<std::mutex> lock(g_watchdog_mutex);
    if (!g_started || g_stop) return;
    g_stop = true;
  }
  g_cv.notify_all();
  if (g_thread != nullptr && g_thread->joinable()) g_thread->join();
}

}  // namespace papcoll::observe
