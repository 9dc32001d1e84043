// What papcoll keeps per communicator for the call board, the watchdog and the report: an
// attribute of the program's communicator (so a freed communicator's reused handle never finds
// the old state), made collectively at the first papcoll call on it, right after the
// communicator itself is checked and before anything else (every rank gets there, whatever its
// other arguments, so a refusal of the first call is settled on the board like any later one);
// for the interposition library's calls, at the first call that opens papcoll's context, or at
// the first call to the MPI library when the report or the watchdog is on. It holds a private
// duplicate, the call counter every rank agrees on, the board and the report record.
//
// Lookup on the call path: a one-entry cache per thread (communicator handle, generation); the
// generation changes whenever an observer is made or deleted, so a stale handle is never trusted.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "observe/call_board.hpp"
#include "observe/report_data.hpp"
#include "observe/report_record.hpp"

namespace papcoll::observe {

// What the driver built the last published call from (api/refusal_join.cpp publish_call): a call
// with the same inputs, the steady state of a loop, publishes `made` again without rebuilding it.
// Calls with arrays (agreed arrivals, portions) are rebuilt every time. Nine words compared as
// words: the call path's (an 8-byte all-reduce pays it on every call).
struct PublishInputs {
  std::int32_t collective = -1;
  std::uint32_t flags = 0;
  std::int64_t count = -1;
  std::uint64_t type = 0;       // the datatype's handle, as bits
  std::uint64_t op = 0;         // the op's handle, as bits; 0: none
  std::uint64_t algorithm = 0;  // the selected row's address; 1: auto; 0: native
  std::int32_t root = -1;
  std::int32_t blocks = 0;
  double alpha = 0, beta = 0, gamma = 0;

  static constexpr int kWords = 9;
  [[gnu::always_inline]] bool same(const PublishInputs& o) const {
    const char* a = reinterpret_cast<const char*>(this);
    const char* b = reinterpret_cast<const char*>(&o);
    std::uint64_t differ = 0;
#pragma GCC unroll 9
    for (int i = 0; i < kWords; ++i) {
      std::uint64_t x, y;
      std::memcpy(&x, a + 8 * i, 8);
      std::memcpy(&y, b + 8 * i, 8);
      differ |= x ^ y;
    }
    return differ == 0;
  }
  template <typename Handle>
  static std::uint64_t bits(Handle h) {
    static_assert(sizeof(Handle) <= sizeof(std::uint64_t), "an MPI handle fits a word");
    std::uint64_t v = 0;
    std::memcpy(&v, &h, sizeof h);
    return v;
  }
};
static_assert(sizeof(PublishInputs) == PublishInputs::kWords * sizeof(std::uint64_t),
              "no padding: compared as words");

struct alignas(64) CommObserver {
  // What every observed call reads and writes, first: one cache line (a tight loop's call to
  // the MPI library evicts it between two calls; docs/report-format.md "Cost").
  std::uint64_t seq = 0;  // calls numbered so far: call n is the n-th on every rank
  // The watchdog's own (its thread, under the registry's mutex), except warned_seq, also read
  // with one relaxed load at the end of every call: the call the watchdog spoke about says when
  // it completed (watchdog.hpp call_completed), before the program may reach MPI_Finalize.
  std::atomic<std::uint64_t> warned_seq{0};
  // &*record when the report is on, else null: the interposition library's steady state tests
  // this word of the first cache line, not the optional's flag behind the record.
  ReportRecord* report = nullptr;
  // board.own_slot() while the board is open, else null: the board's stores need no other line.
  BoardSlot* slot = nullptr;
  // The interposition library's steady state: the latest report template's mirror when the
  // report is on (report_record.hpp), else the key of the last call (the count is not read).
  QuickRepeat quick;
  // The rest.
  MPI_Comm comm = MPI_COMM_NULL;  // private duplicate, MPI_ERRORS_RETURN
  Board board;
  // In the observer, not behind a pointer: the call path reaches its counters at a fixed offset.
  std::optional<ReportRecord> record;
  int rank = 0, size = 1;
  long long id = 0;        // the same on every rank of the communicator
  std::string given_name;  // MPI_Comm_get_name; "" when the program gave none
  std::string label;       // for messages: the given name, or "communicator <id>"
  std::vector<int> world_ranks;
  bool publish_memo_valid = false;  // publish_inputs made published (the call path's, like seq)
  PublishInputs publish_inputs;
  BoardCall published{};
  bool printed = false;
  double warned_entry = 0;
  // The board word the watchdog saw last and since when: a call whose entry time was not read
  // (CallWatch::read_entry) is timed from there, at most one look late.
  std::uint64_t seen_word = 0;
  double seen_since = 0;
  bool closed = false;
};

static_assert(offsetof(CommObserver, comm) == 64, "the call path's fields fill the first line");

struct alignas(64) ThreadCache {
  MPI_Comm comm{};  // not MPI_COMM_NULL, which is no constant in every MPI; generation decides
  std::uint64_t generation = ~0ULL;
  CommObserver* observer = nullptr;
  int unobserved = 0;  // > 0: the thread's collectives are not observed (Unobserved)
  // > 0: this thread runs a papcoll call on behalf of an MPI function (the interposition
  // library): the observer is made when papcoll's context is opened, not at the entry, and a
  // refusal is not settled on the board but left to the MPI library's own checks and error
  // handler (docs/intercept.md), since the other ranks may have sent their call to it directly.
  int mpi_call = 0;
};
// constinit: every use is a plain TLS access, without a call to an initialisation wrapper.
extern constinit thread_local ThreadCache t_cache;
extern std::atomic<std::uint64_t> g_generation;

// The calling thread's t_cache. Outside libpapcoll every access to t_cache is a call to
// __tls_get_addr; the interposition library keeps this address in its own initial-exec TLS
// (intercept_observe.hpp) and reads the cache through it.
ThreadCache& thread_cache();

CommObserver* find_observer_slow(MPI_Comm comm, std::uint64_t generation);

// The observer of `comm`, or null (none made yet, or everything off). `cache` is the calling
// thread's t_cache.
[[gnu::always_inline]] inline CommObserver* find_observer(MPI_Comm comm, ThreadCache& cache) {
  const std::uint64_t g = g_generation.load(std::memory_order_acquire);
  if (cache.comm == comm && cache.generation == g) [[likely]]
    return cache.observer;
  return find_observer_slow(comm, g);
}
[[gnu::always_inline]] inline CommObserver* find_observer(MPI_Comm comm) {
  return find_observer(comm, t_cache);
}

// Collective over `comm` (every rank at the same call): makes its observer. Null when MPI
// failed (then a message on stderr, once). Not for communicators of one rank.
CommObserver* make_observer(MPI_Comm comm);

std::vector<CommObserver*>& live_observers();  // under registry_mutex()
class RegistryLock {
 public:
  RegistryLock();
  ~RegistryLock();
  RegistryLock(const RegistryLock&) = delete;
  RegistryLock& operator=(const RegistryLock&) = delete;
};

// The report's view of every communicator this rank observed (live, and freed ones).
std::vector<CommData> report_snapshot();

// MPI_Finalize: writes the report when PAPCOLL_REPORT is set (collective over MPI_COMM_WORLD;
// `every_process`: the caller knows every process calls this, as the interposition library's
// MPI_Finalize does; otherwise only when a communicator covering the world was observed), stops
// the watchdog and frees every board and duplicate, in the order they were made (collective).
void finalize(bool every_process);

}  // namespace papcoll::observe
