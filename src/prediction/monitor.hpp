// The progress monitor (docs/prediction.md; Proficz, allreduce-slt-prr Sec. 3, Figs. 3-4).
//
// Threads and MPI: every MPI call a monitor makes happens with its mutex held, from the calling
// thread (create, collective entry/exit, free) or from its own background thread (edge mode). The
// monitor talks on two private duplicates of the user's communicator: `xcomm` carries the
// exchanges (point-to-point, tags kTagEdge/kTagMeasure), `tcomm` the clock synchronisation and the
// warm-up messages.
//
// Per collective call n on a monitor (n counts calls; identical on every rank):
//   edge exchange E_n (edge mode): every rank sends one Contribution to every other rank, exactly
//     once: its thread after edge(), or else the main thread at the collective's entry (or at
//     free/MPI_Finalize). At entry the main thread waits for E_n; every rank then holds the same p
//     contributions and applies sanitize_contributions(): the same vector everywhere.
//   measured exchange M_n (both modes): at entry every rank sends its entry time to every other
//     rank; M_n is completed at the exit of call n if it already can be, else at the entry of call
//     n+1 (it cannot block long: every rank sent its part when it entered call n), and then fed to
//     the history predictor of call n's site. Call n+1 therefore predicts from M_0..M_n, which
//     every rank has completely.
// Point-to-point instead of MPI_Iallgather: a message is complete as soon as its sender posted it,
// whereas a multi-round nonblocking collective also needs every peer to keep calling MPI to
// forward data, which a rank busy computing (no thread in history mode) does not do.
#pragma once

#include <mpi.h>

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "executor/mpi_status.hpp"
#include "papcoll/papcoll.h"
#include "prediction/agreement.hpp"
#include "prediction/clock_sync.hpp"
#include "prediction/predictor.hpp"

namespace papcoll::prediction {

// Seconds on the local monotonic clock.
double steady_seconds();

// What one collective call gets from its monitor.
struct CallPattern {
  std::vector<double> arrivals;  // relative seconds, one per rank; empty: all equal
  int source = PAPCOLL_PATTERN_NONE;
  // A history pattern of a sampling monitor (history_sample > 1): a site that acts on it is
  // measured on every call (docs/prediction.md, "Sampling"), which `auto` weighs.
  bool sampled = false;
};

// Live resources of all monitors of the process (for the leak tests).
struct DebugCounters {
  int monitors = 0;     // created and not yet freed/finalized
  int threads = 0;      // background threads running
  int comms = 0;        // duplicate communicators not yet freed
  int requests = 0;     // point-to-point requests posted and not yet completed
  long mismatched = 0;  // exchanges whose call numbers disagreed (a bug or a misuse)
  long measured = 0;    // measured exchanges started (history sampling, for the tests)
};
DebugCounters debug_counters();

class Monitor {
 public:
  // papcoll codes; the message is in papcoll_last_error().
  static int create(MPI_Comm comm, const papcoll_monitor_config& cfg, Monitor** out);
  ~Monitor();
  Monitor(const Monitor&) = delete;
  Monitor& operator=(const Monitor&) = delete;

  int begin();
  int edge(double fraction);
  int inject(double remaining);
  int pattern(double* out, int count, int* source) const;
  // papcoll_monitor_free, first: the most collective calls any rank's handle has let in (`mine`
  // here), so that every rank lets the same calls use the monitor (monitor_api.cpp). Collective
  // (an MPI_Allreduce on the monitor's exchange communicator); `mine` itself once MPI is
  // finalised or the monitor has no communicator.
  MpiStatus agree_calls(std::uint64_t mine, std::uint64_t* most);
  // papcoll_monitor_free: collective. Afterwards the object only waits to be deleted.
  int close();
  // MPI_Finalize with monitors still alive: closes all of them (collectively, in two phases so
  // monitors on different communicators cannot wait for each other).
  static void close_all_at_finalize();

  // papcoll collectives: `entry_steady` is steady_seconds() at the call's entry. enter_call is
  // collective over the monitor's communicator (it may wait for the edge exchange); exit_call is
  // local. Every successful enter_call must be followed by exit_call.
  int enter_call(MPI_Comm comm, double entry_steady, int site, const char* who, CallPattern* out);
  // After the call chose its algorithm: whether it reads the arrival times (history sampling,
  // sample_locked). Once per enter_call, by the same thread.
  void note_use(bool arrivals_used);
  void exit_call();
  // History mode with sampling (history_sample > 1): true when this call of `site` is neither
  // measured nor predicted imbalanced, so that it needs nothing of papcoll; the call is then
  // counted (as enter_call would) and the caller runs the MPI library's collective directly.
  // Every input of the answer is bit-identical on every rank (the fed measurements and the call
  // counts), so every rank answers alike. False whenever the monitor cannot decide (closed, edge
  // mode): the caller then takes the full path, which reports.
  // `following` (may be null), when the answer is true: how many of the site's next calls are
  // quiet too, provided the monitor sees nothing else in between. Nothing a quiet call does can
  // change that (it measures nothing, feeds nothing and predicts nothing; this call completed
  // the exchange in flight), so the caller may run that many calls of the site directly and
  // count them afterwards with count_quiet(), before any other call of the monitor (calls of
  // other sites may come in between: they change nothing of this site's decisions); every rank
  // gets the same number.
  // `every` > 0: the site's sampling interval from now on, instead of history_sample (the
  // interposition library's, from the call's bytes: docs/prediction.md, "Sampling"); the caller
  // passes the same on every rank.
  bool quiet_call(int site, int* following = nullptr, int every = 0);
  // Counts `calls` quiet calls of `site` as quiet_call() would have, handed out by its last
  // `following` (at most that many in all; counted before any other call of the monitor).
  void count_quiet(int site, int calls);

  // The clock offset measured at creation (for the tests, which know the true one).
  ClockSync clock_sync() const { return clock_; }

 private:
  struct Settings {
    bool thread = true;
    PredictorConfig predictor;
    int warmup_messages = 1;
    int sync_samples = 8;
    double horizon = 3600;
    int poll_us = 100;
    double test_clock_offset = 0;
    int history_sample = 1;        // papcoll_monitor_config::history_sample
    double history_spread = 1e-4;  // papcoll_monitor_config::history_spread
  };
  struct EdgeExchange {
    bool started = false, complete = false;
    Contribution mine;
    std::vector<Contribution> all;
    std::vector<MPI_Request> reqs;
    AgreedPattern agreed;
  };
  struct Measured {
    bool active = false;
    int site = 0;
    double seq = -1;
    double mine[2] = {0, 0};  // entry time, call number
    std::vector<double> all;  // 2 per rank
    std::vector<MPI_Request> reqs;
  };
  struct WarmDuty {
    std::uint64_t seq;
    int succ, pred;
  };

  Monitor() = default;
  double local_now() const;
  // History sampling (sample_locked, monitor.cpp): whether this call of a site is measured,
  // and whether it gets the history's prediction.
  struct SampleDecision {
    bool measure = true;
    bool predict = true;
    bool confirm = false;  // predicted from the newest measured pattern (the sample's)
  };
  static constexpr int kUnusedCalls = 4;
  static constexpr double kConfirmGrowth = 2;
  SampleDecision sample_locked(int site);
  std::uint64_t sample_every(const HistoryTable::Sampling& s) const;
  void thread_main();
  MpiStatus service_locked();
  MpiStatus start_edge_locked(const Contribution& c);
  void complete_edge_locked();
  MpiStatus start_measured_locked(double entry, int site);
  void feed_measured_locked();
  MpiStatus post_warmup_locked(const WarmDuty& d);
  MpiStatus test_all_locked(std::vector<MPI_Request>& reqs, bool* done);
  MpiStatus wait_all_locked(std::vector<MPI_Request>& reqs);
  MpiStatus post(int is_send, void* buf, int count, MPI_Datatype type, int peer, int tag,
                 MPI_Comm comm, std::vector<MPI_Request>& into);
  void stop_thread();
  MpiStatus close_phase1();  // thread stopped, edge exchange started
  MpiStatus close_phase2();  // everything completed, communicators freed
  void free_comms();

  Settings set_;
  MPI_Comm xcomm_ = MPI_COMM_NULL, tcomm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  ClockSync clock_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool have_begin_ = false;
  double begin_local_ = 0;
  bool edge_posted_ = false;
  Contribution edge_contrib_;
  bool have_inject_ = false;
  double inject_ = 0;
  std::uint64_t seq_ = 0;  // number of the next collective call
  EdgeExchange e_;
  Measured m_;
  HistoryTable history_;
  // The site of the newest enter_call and the spread of the history prediction it handed the
  // call (-1: none), for note_use.
  int call_site_ = 0;
  double handed_spread_ = -1;
  std::deque<WarmDuty> warm_duties_;
  std::vector<MPI_Request> warm_reqs_;
  std::vector<int> warm_buf_;
  int warm_token_ = 0;
  std::vector<double> last_pattern_;
  int last_source_ = PAPCOLL_PATTERN_NONE;
  std::thread thread_;
  bool stop_ = false;
  std::string thread_error_;  // first MPI failure in the thread
  bool closed_ = false;
};

// One use of a monitor through its C handle (monitor_api.cpp). The C handle is not a pointer but
// a slot number and a generation in a table of live monitors, so a stale or garbage handle is
// refused without reading memory. While a lease exists, papcoll_monitor_free of that monitor on
// this process waits, so the monitor cannot be closed or deleted under a call that is using it.
// Leases are short: a collective call or one papcoll_monitor_* call. A free that races with a
// collective call's start (before it on some ranks, after it on others) first agrees with the
// other ranks on how many collective calls the monitor serves (the most any rank let in); calls
// up to that number still get their lease on every rank, later ones are refused on every rank.
class MonitorLease {
 public:
  MonitorLease() = default;
  MonitorLease(MonitorLease&& o) noexcept : m_(o.m_), entry_(o.entry_) {
    o.m_ = nullptr;
    o.entry_ = nullptr;
  }
  MonitorLease& operator=(MonitorLease&& o) noexcept {
    if (this != &o) {
      release();
      m_ = o.m_;
      entry_ = o.entry_;
      o.m_ = nullptr;
      o.entry_ = nullptr;
    }
    return *this;
  }
  MonitorLease(const MonitorLease&) = delete;
  MonitorLease& operator=(const MonitorLease&) = delete;
  ~MonitorLease() { release(); }

  Monitor* get() const { return m_; }
  Monitor* operator->() const { return m_; }
  explicit operator bool() const { return m_ != nullptr; }
  friend bool operator==(const MonitorLease& l, std::nullptr_t) { return l.m_ == nullptr; }

  struct Entry;  // the table's record of one monitor (monitor_api.cpp)

 private:
  friend MonitorLease monitor_from_handle(papcoll_monitor h, std::string* why);
  friend MonitorLease monitor_for_call(papcoll_monitor h, std::string* why);
  MonitorLease(Monitor* m, Entry* e) : m_(m), entry_(e) {}
  void release() noexcept;

  Monitor* m_ = nullptr;
  Entry* entry_ = nullptr;
};

// A lease on the monitor behind a C handle, or an empty one for NULL, a freed handle (also a copy
// of one, or one being freed) or a value that never was a handle; then *why (if given) says which.
MonitorLease monitor_from_handle(papcoll_monitor h, std::string* why = nullptr);
// The same for a collective call that names the monitor: counted, and while a free of the monitor
// is agreeing on the calls it serves, it waits for that number and gets its lease when it is one
// of them (every rank alike).
MonitorLease monitor_for_call(papcoll_monitor h, std::string* why = nullptr);

// Monitor::quiet_call through a C handle; false for a handle that is not live.
bool monitor_quiet_call(papcoll_monitor h, int site, int* following = nullptr, int every = 0);
// Monitor::count_quiet through a C handle (nothing for a handle that is not live).
void monitor_count_quiet(papcoll_monitor h, int site, int calls);

// Calls holding a lease on the monitor behind `h` on this process (for the tests); -1 if `h` is
// not a live handle.
int monitor_calls_in_flight(papcoll_monitor h);

}  // namespace papcoll::prediction
