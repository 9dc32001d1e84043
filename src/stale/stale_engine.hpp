// The bounded-staleness all-reduce (include/papcoll/stale.h; docs/algorithms.md,
// "Bounded-staleness all-reduce"): after eager-SGD's solo and majority all-reduce (Li et al.,
// PPoPP'20, Sec. 4), a call completes without the ranks that arrive later than a deadline after
// the first one, and their contributions join a later call.
//
// Who does what. Every rank has an engine: a background thread that takes part in every call for
// its rank, on time or not, so that no call ever needs the application's thread of a late rank.
// The application's thread (the "main" thread below) only posts its buffer and waits for the
// call's result; it makes no MPI call on the engine's communicators.
//
// One call n, on the engine's private duplicates of the communicator (`ccomm`: control messages
// and the count, `dcomm`: the data):
//   1. arrival: the main thread posts call n; its engine sends a notice (n) to the decider, the
//      engine of comm rank 0, which is a thread and hence always listening.
//   2. trigger: the decider starts call n when every rank's notice is in, or `deadline` seconds
//      after the first one came in provided every rank has entered call n - S (so that no
//      engine waits for its application inside the all-reduce while the others spin in MPI),
//      and sends the trigger (n) to every other engine. A flush (papcoll_stale_flush) is started
//      only when every rank is in; with S = 0 every call is.
//   3. snapshot: on the trigger each engine decides alone what its rank contributes. Its main
//      thread posted call n and waits: that buffer plus the rank's carry (the contributions it
//      made late at earlier calls, summed), else the carry alone (possibly nothing). Staleness
//      bound S: the engine first waits until its main thread has posted call n - S, so that a
//      contribution made at call k is never left out of call k + S.
//   4. reduce: papcoll's all-reduce (the handle's algorithm) of the contributions over dcomm, and
//      MPI_Iallreduce of their number over ccomm, overlapped. Every engine takes part, so every
//      rank gets the same sum and count.
//   5. result: an included main thread has the sum in its receive buffer. A main thread that
//      posts call n after its engine's snapshot (it was late) finds the result kept for it, and
//      its buffer goes into the carry for the next call.
// Contributions are counted, never scaled: the caller divides (the torch hook averages over the
// count, so each step's update is the mean of the gradients it includes).
//
// Threads and locks: everything in the "shared" block is under mu_. The main thread touches
// buffers only while it holds mu_, or while it waits in allreduce()/flush() (then the engine owns
// its receive buffer until it sets Pending::complete). The engine makes every MPI call on ccomm
// and dcomm, with mu_ released.
#pragma once

#include <mpi.h>

#include <array>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "executor/mpi_status.hpp"

namespace papcoll::stale {

struct EngineConfig {
  int staleness = 1;
  double deadline = 0.002;
  std::string algorithm;  // "" or "auto": papcoll's auto
  int poll_us = 50;
};

// Live resources, for the tests' leak checks.
struct StaleCounters {
  int engines = 0;
  int threads = 0;
  int comms = 0;
};
StaleCounters stale_counters();

class Engine {
 public:
  // Collective over `comm`. The datatype is predefined and arithmetic, the op MPI_SUM (checked by
  // the caller, stale_api.cpp). papcoll codes; the message in papcoll_last_error().
  static int create(MPI_Comm comm, int count, MPI_Datatype type, const EngineConfig& cfg,
                    Engine** out);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  int allreduce(const void* send, void* recv, long long* contributions);
  int flush(void* recv, long long* contributions);
  // Collective: stops the thread and frees the duplicates. PAPCOLL_ERR_ARG on every rank when
  // contributions were still pending (they are dropped).
  int close();
  // MPI_Finalize with the engine alive: stops the thread (not collective; MPI frees the comms).
  void shutdown();

  MPI_Comm user_comm() const { return user_comm_; }
  long long bytes() const { return static_cast<long long>(bytes_); }

 private:
  // A buffer of the handle's size (count elements), aligned for every predefined type.
  using Buf = std::unique_ptr<std::byte[]>;
  struct Pending {  // a main thread waiting in allreduce() or flush()
    std::uint64_t call = 0;
    const void* send = nullptr;  // its contribution; null for a flush
    void* recv = nullptr;
    bool included = false;  // the engine reduces straight into recv
    bool complete = false;
    long long total = 0;
  };
  struct Result {  // a call's result kept for a main thread that arrives late
    std::uint64_t call = 0;
    Buf data;
    long long total = 0;
  };
  struct Notice {               // a notice in flight to the decider
    long long msg[2] = {0, 0};  // call, flags
    MPI_Request req = MPI_REQUEST_NULL;
  };
  struct Arrivals {  // the decider's view of one call
    int count = 0;
    double first = 0;  // when the decider learnt of the first arrival
    bool flush = false;
  };

  Engine() = default;
  int post(const void* send, void* recv, bool flush, long long* contributions);
  void thread_main();
  MpiStatus step(bool* ran_call);
  MpiStatus send_notices();
  MpiStatus receive_notices();
  MpiStatus test_sends();
  MpiStatus run_call(std::uint64_t n, bool flush);
  MpiStatus finish_close();
  void note_arrival(std::uint64_t call, int rank, bool flush, double now);
  void add_to_carry_locked(const void* src);
  Buf take_spare_locked();
  void set_broken(const std::string& message);
  void free_comms();

  // Set at creation.
  MPI_Comm user_comm_ = MPI_COMM_NULL, ccomm_ = MPI_COMM_NULL, dcomm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1, count_ = 0;
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  std::size_t bytes_ = 0;
  EngineConfig cfg_;
  std::thread thread_;

  // The engine thread's own (no lock).
  std::uint64_t notified_ = 0;  // calls whose notice was sent
  std::deque<Notice> notices_;
  long long trigger_in_[2] = {0, 0};
  MPI_Request trigger_req_ = MPI_REQUEST_NULL;
  std::deque<std::array<long long, 2>> trigger_out_;  // the decider's triggers in flight
  std::vector<MPI_Request> trigger_sends_;
  long long notice_in_[2] = {0, 0};
  MPI_Request notice_req_ = MPI_REQUEST_NULL;
  std::map<std::uint64_t, Arrivals> arrivals_;
  std::vector<std::uint64_t> noticed_;  // the decider's: per rank, the latest call it entered
  std::uint64_t notices_received_ = 0;
  long long pending_at_close_ = 0;
  bool counted_ = false;

  // Shared, under mu_.
  std::mutex mu_;
  std::condition_variable wake_engine_, wake_main_;
  std::uint64_t posted_ = 0;       // calls the main thread has posted
  std::deque<bool> posted_flush_;  // per posted call not yet notified: is it a flush
  std::uint64_t done_ = 0;         // calls completed by the engine
  Pending* waiting_ = nullptr;
  std::deque<Result> results_;
  Buf carry_;
  long long carry_count_ = 0;
  std::vector<Buf> spare_;
  bool closing_ = false, stop_ = false, exited_ = false;
  bool broken_ = false;
  std::string broken_message_;
};

}  // namespace papcoll::stale
