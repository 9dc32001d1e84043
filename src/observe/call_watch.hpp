// The call path's one hook into the board and the report (the driver's run_collective and the
// interposition library's native calls): a scope per collective call.
//
//   begin (constructor)  the communicator's observer (cached lookup; the driver's first call on a
//                        communicator makes it, collectively, before any argument is checked);
//                        the call is numbered and the board says "entered call n" (at t, when
//                        the caller read the clock)
//   read_entry()         a caller that read no clock at the entry (the interposition library's
//                        calls to the MPI library): reads it when the report needs it
//   publish()            after the argument checks, before any communication of the call: the
//                        call as this rank passes it (a rank that refused it reads it there)
//   refused()            this rank refused the call (refusal.hpp then settles it)
//   stand_in(), notify() this rank takes part with stand-in data: why, and the ranks whose result
//                        holds it are told before its first message
//   attach()             the interposition library's calls: after the communicator's context is
//                        open, the first call makes the observer (collectively) and is numbered
//   peer_failed()        at the end: whether a rank said it took part with stand-in data this
//                        rank's result holds (one load)
//   end (destructor)     the board says "idle after call n"; the report records the call
//
// Off (no board, no report, no watchdog), each step is one test of a constant. With the board,
// a few stores into this rank's own slot (a repeated call's: one) and one load at the end. With
// the report, also counter updates and, on a sampled subset of the calls, clock reads
// (report_record.hpp).
#pragma once

#include <mpi.h>

#include <cmath>
#include <cstdint>

#include "error/hot_path.hpp"
#include "observe/comm_observer.hpp"
#include "observe/observe_config.hpp"
#include "observe/watchdog.hpp"
#include "prediction/monitor.hpp"

namespace papcoll::observe {

class CallWatch {
 public:
  // `make_board`: the caller is the driver of a papcoll call (not on behalf of an MPI function,
  // ThreadCache::mpi_call): a communicator without an observer gets one now, collectively.
  CallWatch(MPI_Comm comm, int collective, double entry, bool make_board = false)
      : collective_(collective), entry_(entry) {
    if (!active()) return;
    ThreadCache& cache = t_cache;  // one TLS address for the three reads
    if (cache.unobserved == 0) begin(comm, cache, make_board && cache.mpi_call == 0);
  }
  ~CallWatch() {
    if (obs_ != nullptr) end();
  }
  CallWatch(const CallWatch&) = delete;
  CallWatch& operator=(const CallWatch&) = delete;

  // Whether anything is being observed for this call (else the other steps do nothing).
  bool on() const { return obs_ != nullptr || armed_; }
  bool has_board() const { return obs_ != nullptr && obs_->board.is_open(); }
  CommObserver* observer() const { return obs_; }
  std::uint64_t seq() const { return seq_; }
  int collective() const { return collective_; }

  // The report's call key.
  void set_key(long long bytes, int root) {
    key_.bytes = bytes;
    key_.root = root;
  }
  // Before the call's messages, when the constructor was given no entry time (NaN).
  void read_entry() {
    if (obs_ == nullptr || !obs_->record) return;
    CallKey k = key_;
    k.collective = collective_;
    if (!obs_->record->needs_entry(k, seq_)) return;
    entry_ = prediction::steady_seconds();
    if (obs_->board.is_open()) obs_->board.set_entry(entry_);
  }
  // No observer yet: attach() would make one (collectively) at this call.
  bool unattached() const { return armed_; }
  // True when it made the observer (the call was not published: the board was not there).
  bool attach(MPI_Comm comm) {
    if (!armed_) return false;
    attach_slow(comm);
    return obs_ != nullptr;
  }
  // The call as this rank passes it, with its arrays (null or p entries).
  void publish(const BoardCall& c, const double* arrivals = nullptr,
               const long long* portions = nullptr) {
    if (has_board() && !published_) {
      obs_->board.publish(seq_, c, arrivals, portions);
      published_ = true;
    }
  }
  // The same for a call held unchanged at a stable address (Board::publish_same).
  void publish_same(const BoardCall& c) {
    if (has_board() && !published_) {
      obs_->board.publish_same(seq_, c);
      published_ = true;
    }
  }
  // What ran and why (the report).
  void ran(const char* algorithm, AutoReason reason, double gain) {
    algorithm_ = algorithm;
    reason_ = reason;
    gain_ = gain;
  }
  void set_predicted(double seconds_after_earliest) { predicted_ = seconds_after_earliest; }
  // This rank refused the call: the board says so (refusal.hpp then settles it).
  void refused(int code, const char* message);
  // This rank takes part with stand-in data: why (read by the ranks it tells).
  void stand_in(int code, const char* message);
  // Tells `rank` that its result of this call holds this rank's stand-in data. False when the
  // board could not (no board, an MPI failure).
  bool notify(int rank) { return has_board() && obs_->board.notify(rank, seq_); }
  // Another rank told this one that its result of this call holds stand-in data.
  [[gnu::always_inline]] bool peer_failed() const {
    return obs_ != nullptr && obs_->slot != nullptr && Board::peer_failed(obs_->slot) >= seq_ &&
           seq_ != 0;
  }
  // The call is not to be recorded.
  void forget() { obs_ = nullptr; }

 private:
  void begin(MPI_Comm comm, ThreadCache& cache, bool make_board) {
    obs_ = find_observer(comm, cache);
    if (obs_ == nullptr) {
      armed_ = true;  // attach() makes the observer if the call gets that far
      if (make_board) attach_slow(comm);
      return;
    }
    seq_ = ++obs_->seq;
    if (obs_->board.is_open()) obs_->board.enter(seq_, entry_, collective_);
  }
  PAPCOLL_HOT void end() {
    if (obs_->board.is_open()) obs_->board.leave(seq_);
    if (obs_->warned_seq.load(std::memory_order_relaxed) == seq_) [[unlikely]]
      call_completed(*obs_, seq_);
    if (obs_->record) {
      // A call with nothing measured, like the one before: only counted (report_record.hpp).
      if (std::isnan(entry_) && std::isnan(gain_) && std::isnan(predicted_) &&
          obs_->record->add_repeat(CallKey{collective_, key_.bytes, key_.root}, algorithm_, reason_,
                                   seq_))
        return;
      record();
    }
  }
  void attach_slow(MPI_Comm comm);
  void record();

  CommObserver* obs_ = nullptr;
  bool armed_ = false;
  bool published_ = false;
  int collective_;
  double entry_;
  std::uint64_t seq_ = 0;
  CallKey key_;
  const char* algorithm_ = "none";
  AutoReason reason_ = AutoReason::named;
  double gain_ = NAN;
  double predicted_ = NAN;
};

// While alive, the calling thread's collectives are not observed (a tool's own calls around a
// measured loop, tools/papcoll_observe_native_ab.cpp).
class Unobserved {
 public:
  Unobserved() { ++t_cache.unobserved; }
  ~Unobserved() { --t_cache.unobserved; }
  Unobserved(const Unobserved&) = delete;
  Unobserved& operator=(const Unobserved&) = delete;
};

// While alive, the calling thread's papcoll calls are made on behalf of an MPI function
// (ThreadCache::mpi_call).
class OnBehalfOfMpi {
 public:
  OnBehalfOfMpi() : cache_(thread_cache()) { ++cache_.mpi_call; }
  ~OnBehalfOfMpi() { --cache_.mpi_call; }
  OnBehalfOfMpi(const OnBehalfOfMpi&) = delete;
  OnBehalfOfMpi& operator=(const OnBehalfOfMpi&) = delete;

 private:
  ThreadCache& cache_;
};

}  // namespace papcoll::observe
