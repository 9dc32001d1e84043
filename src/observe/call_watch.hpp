// The call path's one hook into the board and the report (the driver's run_collective and the
// interposition library's native calls): a scope per collective call.
//
//   begin (constructor)  the communicator's observer (cached lookup); the call is numbered and
//                        the board says "entered call n" (at t, when the caller read the clock)
//   read_entry()         a caller that read no clock at the entry (the interposition library's
//                        calls to the MPI library): reads it when the report needs it
//   not_joinable()       the call's first messages come before its descriptor (a monitor, an
//                        arrivals broadcast, the v-collectives' agreement): published at once, so
//                        a rank that refused the call does not wait for a descriptor
//   attach()             after the communicator's context is open: the first call makes the
//                        observer (collectively) and is numbered there
//   ready()              right before the messages: the descriptor and what runs
//   end (destructor)     the board says "idle after call n"; the report records the call
//
// Off (no board, no report, no watchdog), each step is one test of a constant. With the board,
// a few stores into this rank's own slot (a repeated call's descriptor: one). With the report,
// also counter updates and, on a sampled subset of the calls, clock reads (report_record.hpp).
#pragma once

#include <mpi.h>

#include <cmath>
#include <cstdint>

#include "observe/comm_observer.hpp"
#include "observe/observe_config.hpp"
#include "observe/watchdog.hpp"
#include "prediction/monitor.hpp"

namespace papcoll::observe {

class CallWatch {
 public:
  CallWatch(MPI_Comm comm, int collective, double entry) : collective_(collective), entry_(entry) {
    if (active() && t_cache.joining == 0) begin(comm);
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
  void not_joinable() {
    if (has_board() && !published_) {
      JoinDescriptor d{};
      d.collective = collective_;
      d.joinable = 0;
      d.type = d.op = d.root = d.algorithm = -1;
      obs_->board.ready(seq_, d);
      published_ = true;
    }
  }
  void attach(MPI_Comm comm) {
    if (!armed_) {
      if (obs_ != nullptr && !obs_->papcoll_context) obs_->papcoll_context = true;
      return;
    }
    attach_slow(comm);
  }
  void ready(const JoinDescriptor& d) {
    if (has_board() && !published_) {
      obs_->board.ready(seq_, d);
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
  // The call is not to be recorded (a rank that joins another call in its place).
  void forget() { obs_ = nullptr; }

 private:
  void begin(MPI_Comm comm) {
    obs_ = find_observer(comm);
    if (obs_ == nullptr) {
      armed_ = true;  // attach() makes the observer if the call gets that far
      return;
    }
    seq_ = ++obs_->seq;
    if (obs_->board.is_open()) obs_->board.enter(seq_, entry_, collective_);
  }
  void end() {
    if (obs_->board.is_open()) obs_->board.leave(seq_);
    if (obs_->warned_seq.load(std::memory_order_relaxed) == seq_) [[unlikely]]
      call_completed(*obs_, seq_);
    if (obs_->record) {
      // A call with nothing measured, like the one before: only counted (report_record.hpp).
      if (std::isnan(entry_) && std::isnan(gain_) && std::isnan(predicted_) &&
          obs_->record->add_repeat(CallKey{collective_, key_.bytes, key_.root}, algorithm_,
                                   reason_, seq_))
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

// While alive, the calling thread's collectives are not observed (a refusing rank running the
// other ranks' call with stand-in data: that call is the refused one, already numbered).
class Unobserved {
 public:
  Unobserved() { ++t_cache.joining; }
  ~Unobserved() { --t_cache.joining; }
  Unobserved(const Unobserved&) = delete;
  Unobserved& operator=(const Unobserved&) = delete;
};

}  // namespace papcoll::observe
