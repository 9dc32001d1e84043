#include "stale/stale_engine.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <system_error>

#include "error/error.hpp"
#include "observe/call_watch.hpp"
#include "papcoll/papcoll.h"
#include "prediction/monitor.hpp"
#include "schedule/schedule.hpp"

namespace papcoll::stale {

namespace {

// Tags on ccomm. Triggers come from one sender, the decider, in call order; notices from every
// engine to the decider, each carrying its call number.
constexpr int kTagStaleNotice = 1;
constexpr int kTagStaleTrigger = 2;
constexpr long long kFlagFlush = 1;
constexpr int kDecider = 0;
// While nothing is open for this engine (no call posted, no arrival known), it polls this many
// times more slowly.
constexpr int kIdleBackoff = 4;

std::atomic<int> g_stale_engines{0}, g_stale_threads{0}, g_stale_comms{0};

}  // namespace

StaleCounters stale_counters() {
  return {g_stale_engines.load(), g_stale_threads.load(), g_stale_comms.load()};
}

// ------------------------------------------------------------------------------------------------
// Creation and destruction

int Engine::create(MPI_Comm comm, int count, MPI_Datatype type, const EngineConfig& cfg,
                   Engine** out) {
  const std::string who = "papcoll_stale_create: ";
  auto mpi = [&](const MpiStatus& s) { return fail(PAPCOLL_ERR_MPI, who + describe(s)); };
  *out = nullptr;
  std::unique_ptr<Engine> e(new Engine());
  e->user_comm_ = comm;
  e->count_ = count;
  e->type_ = type;
  e->cfg_ = cfg;
  int type_size = 0;
  if (int rc = MPI_Type_size(type, &type_size); rc != MPI_SUCCESS)
    return mpi({rc, "MPI_Type_size"});
  e->bytes_ = static_cast<std::size_t>(count) * static_cast<std::size_t>(type_size);
  int provided = MPI_THREAD_SINGLE;
  if (int rc = MPI_Query_thread(&provided); rc != MPI_SUCCESS) return mpi({rc, "MPI_Query_thread"});

  // Collective from here on; every rank gets the same outcome.
  MpiStatus s = mpi_check(MPI_Comm_dup(comm, &e->ccomm_), "MPI_Comm_dup");
  if (s.ok()) {
    ++g_stale_comms;
    s = mpi_check(MPI_Comm_dup(comm, &e->dcomm_), "MPI_Comm_dup");
    if (s.ok()) ++g_stale_comms;
  }
  for (MPI_Comm c : {e->ccomm_, e->dcomm_})
    if (s.ok() && c != MPI_COMM_NULL)
      s = mpi_check(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  if (s.ok()) s = mpi_check(MPI_Comm_rank(e->ccomm_, &e->rank_), "MPI_Comm_rank");
  if (s.ok()) s = mpi_check(MPI_Comm_size(e->ccomm_, &e->size_), "MPI_Comm_size");
  // The thread level may in principle differ between ranks: agree before anyone starts a thread.
  int my_ok = (e->size_ == 1 || provided >= MPI_THREAD_MULTIPLE) ? 1 : 0, all_ok = 0;
  if (s.ok())
    s = mpi_check(MPI_Allreduce(&my_ok, &all_ok, 1, MPI_INT, MPI_MIN, e->ccomm_), "MPI_Allreduce");
  if (!s.ok()) {
    e->free_comms();
    return mpi(s);
  }
  if (!all_ok) {
    e->free_comms();
    return fail(PAPCOLL_ERR_THREAD,
                who +
                    "the bounded-staleness all-reduce runs a background thread that calls MPI "
                    "and needs MPI_THREAD_MULTIPLE" +
                    (my_ok ? std::string(" on every rank; another rank has less")
                           : std::string("; this rank has less")) +
                    ". Initialise MPI with MPI_Init_thread(..., MPI_THREAD_MULTIPLE, ...) (mpi4py "
                    "asks for it by default)");
  }
  try {
    e->carry_.reset(new std::byte[std::max<std::size_t>(e->bytes_, 1)]);
  } catch (const std::bad_alloc&) {
    e->free_comms();
    return fail(PAPCOLL_ERR_INTERNAL, who + "out of memory for the carry buffer");
  }
  e->noticed_.assign(static_cast<size_t>(e->size_), 0);
  // One rank: every call includes exactly its own contribution; no thread.
  if (e->size_ > 1) {
    try {
      e->thread_ = std::thread(&Engine::thread_main, e.get());
    } catch (const std::system_error& err) {
      e->free_comms();
      return fail(PAPCOLL_ERR_INTERNAL, who + "cannot start the thread: " + err.what());
    }
    ++g_stale_threads;
  }
  ++g_stale_engines;
  e->counted_ = true;
  *out = e.release();
  return PAPCOLL_SUCCESS;
}

Engine::~Engine() {
  if (thread_.joinable()) shutdown();
  if (counted_) --g_stale_engines;
}

void Engine::free_comms() {
  for (MPI_Comm* c : {&ccomm_, &dcomm_})
    if (*c != MPI_COMM_NULL) {
      MPI_Comm_free(c);
      --g_stale_comms;
    }
}

void Engine::set_broken(const std::string& message) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!broken_) broken_message_ = message;
  broken_ = true;
  wake_main_.notify_all();
}

// ------------------------------------------------------------------------------------------------
// The main thread

Engine::Buf Engine::take_spare_locked() {
  if (!spare_.empty()) {
    Buf b = std::move(spare_.back());
    spare_.pop_back();
    return b;
  }
  return Buf(new std::byte[std::max<std::size_t>(bytes_, 1)]);
}

void Engine::add_to_carry_locked(const void* src) {
  // The first contribution is copied, so the carry never needs clearing.
  if (carry_count_ == 0)
    std::memcpy(carry_.get(), src, bytes_);
  else if (count_ > 0)
    MPI_Reduce_local(src, carry_.get(), count_, type_, MPI_SUM);
  ++carry_count_;
}

int Engine::allreduce(const void* send, void* recv, long long* contributions) {
  return post(send == MPI_IN_PLACE ? recv : send, recv, false, contributions);
}

int Engine::flush(void* recv, long long* contributions) {
  return post(nullptr, recv, true, contributions);
}

int Engine::post(const void* send, void* recv, bool flush, long long* contributions) {
  const char* who = flush ? "papcoll_stale_flush: " : "papcoll_stale_allreduce: ";
  if (size_ == 1) {
    // Alone, a call includes its own buffer and nothing is ever pending.
    long long total = 0;
    if (flush) {
      if (carry_count_ > 0)
        std::memcpy(recv, carry_.get(), bytes_);
      else
        std::memset(recv, 0, bytes_);
      total = carry_count_;
      carry_count_ = 0;
    } else {
      if (send != recv) std::memcpy(recv, send, bytes_);
      total = 1;
    }
    ++posted_;
    ++done_;
    if (contributions != nullptr) *contributions = total;
    return PAPCOLL_SUCCESS;
  }
  std::unique_lock<std::mutex> lock(mu_);
  if (broken_) return fail(PAPCOLL_ERR_MPI, who + broken_message_);
  if (closing_ || stop_) return fail(PAPCOLL_ERR_ARG, std::string(who) + "the handle is closed");
  const std::uint64_t n = ++posted_;
  posted_flush_.push_back(flush);
  wake_engine_.notify_one();
  if (done_ >= n && !flush) {
    // Late: the call completed without this rank. Its buffer waits in the carry; the result is
    // the one kept for it (results_ holds calls done_ - k + 1 .. done_ in order).
    if (results_.empty() || results_.front().call != n)
      return fail(PAPCOLL_ERR_INTERNAL, std::string(who) + "no kept result for call " +
                                            std::to_string(n) + " (a papcoll bug)");
    Result r = std::move(results_.front());
    results_.pop_front();
    add_to_carry_locked(send);
    std::memcpy(recv, r.data.get(), bytes_);
    if (contributions != nullptr) *contributions = r.total;
    spare_.push_back(std::move(r.data));
    return PAPCOLL_SUCCESS;
  }
  Pending me;
  me.call = n;
  me.send = send;
  me.recv = recv;
  waiting_ = &me;
  wake_main_.wait(lock, [&] { return me.complete || broken_ || exited_; });
  waiting_ = nullptr;
  if (!me.complete)
    return broken_ ? fail(PAPCOLL_ERR_MPI, who + broken_message_)
                   : fail(PAPCOLL_ERR_ARG, std::string(who) + "the handle was shut down");
  if (contributions != nullptr) *contributions = me.total;
  return PAPCOLL_SUCCESS;
}

// ------------------------------------------------------------------------------------------------
// The engine thread

void Engine::thread_main() {
  int polls = 0;
  for (;;) {
    bool ran = false;
    MpiStatus s;
    try {
      s = step(&ran);
    } catch (const std::exception& e) {  // out of memory for a buffer: the handle is broken
      set_broken(std::string("the engine thread failed: ") + e.what());
      break;
    }
    if (!s.ok()) {
      set_broken(describe(s));
      break;
    }
    std::unique_lock<std::mutex> lock(mu_);
    if (stop_ || exited_) break;
    if (ran) {
      polls = 0;
      continue;
    }
    // Open: the main thread waits in a call, or the decider knows an arrival (a deadline runs).
    const bool open = posted_ > done_ || !arrivals_.empty();
    polls = open ? 0 : polls + 1;
    auto wait = std::chrono::microseconds(cfg_.poll_us * (polls > 16 ? kIdleBackoff : 1));
    if (rank_ == kDecider) {
      auto it = arrivals_.find(done_ + 1);
      if (it != arrivals_.end() && !it->second.flush) {
        // Until the deadline; past it (waiting for the bound's notices) at the polling pace.
        const double left = it->second.first + cfg_.deadline - prediction::steady_seconds();
        if (left > 0)
          wait = std::min(wait, std::chrono::microseconds(static_cast<long long>(left * 1e6) + 1));
      }
    }
    wake_engine_.wait_for(lock, wait, [&] { return stop_ || closing_ || posted_ > notified_; });
  }
  std::lock_guard<std::mutex> lock(mu_);
  exited_ = true;
  wake_main_.notify_all();
}

MpiStatus Engine::step(bool* ran_call) {
  *ran_call = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_) {
      // MPI_Finalize: nothing completes any more; free what is in flight.
      for (MPI_Request* r : {&trigger_req_, &notice_req_})
        if (*r != MPI_REQUEST_NULL) {
          MPI_Cancel(r);
          MPI_Request_free(r);
        }
      for (Notice& nt : notices_)
        if (nt.req != MPI_REQUEST_NULL) MPI_Request_free(&nt.req);
      for (MPI_Request& r : trigger_sends_)
        if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
      return {};
    }
  }
  if (MpiStatus s = send_notices(); !s.ok()) return s;
  if (MpiStatus s = test_sends(); !s.ok()) return s;
  const std::uint64_t next = [&] {
    std::lock_guard<std::mutex> lock(mu_);
    return done_ + 1;
  }();
  bool closing = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    closing = closing_ && posted_ == done_ && posted_ == notified_;
  }
  if (rank_ == kDecider) {
    if (MpiStatus s = receive_notices(); !s.ok()) return s;
    if (closing) return finish_close();
    auto it = arrivals_.find(next);
    if (it == arrivals_.end()) return {};
    const Arrivals a = it->second;
    const bool all_in = a.count == size_;
    // Past the deadline the call starts without the late ranks, but only once every rank has
    // entered call next - S: then no engine has to wait for its application (the bound) inside
    // the all-reduce, where the others would spin in MPI meanwhile, taking the CPU from the
    // late ones where ranks share cores. With S = 0 this is "every rank is in".
    const auto s_bound = static_cast<std::uint64_t>(cfg_.staleness);
    const bool bound_met = *std::min_element(noticed_.begin(), noticed_.end()) + s_bound >= next;
    if (!all_in &&
        (a.flush || !bound_met || prediction::steady_seconds() < a.first + cfg_.deadline))
      return {};
    arrivals_.erase(it);
    // The trigger to every other engine: direct messages (a tree would need every engine on its
    // path to forward promptly; these threads poll, so each hop would add a polling interval).
    // Every message of this call carries the same two values: one pair, kept (a deque does not
    // move its elements) until every send of it completed.
    trigger_out_.push_back({static_cast<long long>(next), a.flush ? kFlagFlush : 0});
    long long* msg = trigger_out_.back().data();
    for (int r = 0; r < size_; ++r) {
      if (r == kDecider) continue;
      MPI_Request req = MPI_REQUEST_NULL;
      PAPCOLL_MPI_TRY(MPI_Isend(msg, 2, MPI_LONG_LONG, r, kTagStaleTrigger, ccomm_, &req),
                      "MPI_Isend");
      trigger_sends_.push_back(req);
    }
    *ran_call = true;
    return run_call(next, a.flush);
  }
  if (trigger_req_ == MPI_REQUEST_NULL) {
    if (closing) return finish_close();
    PAPCOLL_MPI_TRY(MPI_Irecv(trigger_in_, 2, MPI_LONG_LONG, kDecider, kTagStaleTrigger, ccomm_,
                              &trigger_req_),
                    "MPI_Irecv");
  }
  int flag = 0;
  PAPCOLL_MPI_TRY(MPI_Test(&trigger_req_, &flag, MPI_STATUS_IGNORE), "MPI_Test");
  if (!flag) {
    if (closing) return finish_close();
    return {};
  }
  trigger_req_ = MPI_REQUEST_NULL;
  if (static_cast<std::uint64_t>(trigger_in_[0]) != next)
    return {MPI_ERR_OTHER, "a trigger of another call (a papcoll bug)"};
  *ran_call = true;
  return run_call(next, (trigger_in_[1] & kFlagFlush) != 0);
}

void Engine::note_arrival(std::uint64_t call, int rank, bool flush, double now) {
  // One engine's notices come in call order (MPI does not overtake messages of one sender).
  if (rank >= 0 && rank < size_)
    noticed_[static_cast<size_t>(rank)] = std::max(noticed_[static_cast<size_t>(rank)], call);
  std::lock_guard<std::mutex> lock(mu_);
  if (call <= done_) return;  // a late rank's notice of a call that completed without it
  Arrivals& a = arrivals_[call];
  if (a.count == 0) a.first = now;
  ++a.count;
  a.flush = a.flush || flush;
}

MpiStatus Engine::send_notices() {
  for (;;) {
    bool flush = false;
    std::uint64_t call = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (notified_ >= posted_) return {};
      call = ++notified_;
      flush = posted_flush_.front();
      posted_flush_.pop_front();
    }
    if (rank_ == kDecider) {
      note_arrival(call, rank_, flush, prediction::steady_seconds());
      continue;
    }
    notices_.emplace_back();
    Notice& nt = notices_.back();
    nt.msg[0] = static_cast<long long>(call);
    nt.msg[1] = flush ? kFlagFlush : 0;
    PAPCOLL_MPI_TRY(MPI_Isend(nt.msg, 2, MPI_LONG_LONG, kDecider, kTagStaleNotice, ccomm_, &nt.req),
                    "MPI_Isend");
  }
}

MpiStatus Engine::receive_notices() {
  for (;;) {
    if (notice_req_ == MPI_REQUEST_NULL)
      PAPCOLL_MPI_TRY(MPI_Irecv(notice_in_, 2, MPI_LONG_LONG, MPI_ANY_SOURCE, kTagStaleNotice,
                                ccomm_, &notice_req_),
                      "MPI_Irecv");
    int flag = 0;
    MPI_Status st;
    PAPCOLL_MPI_TRY(MPI_Test(&notice_req_, &flag, &st), "MPI_Test");
    if (!flag) return {};
    notice_req_ = MPI_REQUEST_NULL;
    ++notices_received_;
    note_arrival(static_cast<std::uint64_t>(notice_in_[0]), st.MPI_SOURCE,
                 (notice_in_[1] & kFlagFlush) != 0, prediction::steady_seconds());
  }
}

MpiStatus Engine::test_sends() {
  while (!notices_.empty()) {
    int flag = 0;
    PAPCOLL_MPI_TRY(MPI_Test(&notices_.front().req, &flag, MPI_STATUS_IGNORE), "MPI_Test");
    if (!flag) break;
    notices_.pop_front();
  }
  if (!trigger_sends_.empty()) {
    int flag = 0;
    PAPCOLL_MPI_TRY(MPI_Testall(static_cast<int>(trigger_sends_.size()), trigger_sends_.data(),
                                &flag, MPI_STATUSES_IGNORE),
                    "MPI_Testall");
    if (flag) {
      trigger_sends_.clear();
      trigger_out_.clear();
    }
  }
  return {};
}

MpiStatus Engine::run_call(std::uint64_t n, bool flush) {
  void* target = nullptr;
  long long mine = 0;
  Pending* included = nullptr;
  Buf inflight;
  {
    std::unique_lock<std::mutex> lock(mu_);
    // The bound: a contribution made at call n - S must be in this call at the latest, so wait
    // until the main thread has made it (then it is in the carry). A flush starts only once
    // every rank posted it, so this holds for it already.
    const auto s = static_cast<std::uint64_t>(cfg_.staleness);
    wake_engine_.wait(lock, [&] { return stop_ || posted_ + s >= n; });
    if (stop_) return {};
    Pending* w = waiting_ != nullptr && waiting_->call == n ? waiting_ : nullptr;
    if (w != nullptr && !flush) {
      // On time: reduce straight into the waiting caller's receive buffer (it waits until
      // `complete`, so the buffer is the engine's meanwhile).
      if (w->send != w->recv) std::memcpy(w->recv, w->send, bytes_);
      if (carry_count_ > 0 && count_ > 0)
        MPI_Reduce_local(carry_.get(), w->recv, count_, type_, MPI_SUM);
      mine = 1 + carry_count_;
      carry_count_ = 0;
      w->included = true;
      included = w;
      target = w->recv;
    } else {
      if (carry_count_ == 0) std::memset(carry_.get(), 0, bytes_);
      mine = carry_count_;
      carry_count_ = 0;
      inflight = std::move(carry_);
      carry_ = take_spare_locked();
      target = inflight.get();
    }
  }
  long long total = 0;
  MPI_Request count_req = MPI_REQUEST_NULL;
  PAPCOLL_MPI_TRY(MPI_Iallreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, ccomm_, &count_req),
                  "MPI_Iallreduce");
  int rc = PAPCOLL_SUCCESS;
  if (count_ > 0) {
    // The engine's all-reduce is this call's transport, not a collective of the program: the
    // report and the board record the program's call (stale_api.cpp) instead.
    const observe::Unobserved quiet;
    papcoll_options opt;
    papcoll_options_init(&opt);
    opt.algorithm = cfg_.algorithm.empty() ? nullptr : cfg_.algorithm.c_str();
    rc = papcoll_allreduce(MPI_IN_PLACE, target, count_, type_, MPI_SUM, dcomm_, &opt);
  }
  PAPCOLL_MPI_TRY(MPI_Wait(&count_req, MPI_STATUS_IGNORE), "MPI_Wait");
  if (rc != PAPCOLL_SUCCESS) {
    set_broken(std::string("the all-reduce of call ") + std::to_string(n) +
               " failed: " + papcoll_last_error());
    return {};
  }
  std::lock_guard<std::mutex> lock(mu_);
  done_ = n;
  if (included != nullptr) {
    included->total = total;
    included->complete = true;
    wake_main_.notify_all();
    return {};
  }
  if (waiting_ != nullptr && waiting_->call == n) {
    // The main thread posted this call after the snapshot (or it is the flush): its buffer goes
    // into the carry, the result into its receive buffer.
    Pending* w = waiting_;
    if (!flush) add_to_carry_locked(w->send);
    std::memcpy(w->recv, inflight.get(), bytes_);
    w->total = total;
    w->complete = true;
    spare_.push_back(std::move(inflight));
    wake_main_.notify_all();
    return {};
  }
  results_.push_back(Result{n, std::move(inflight), total});
  return {};
}

// ------------------------------------------------------------------------------------------------
// Closing

MpiStatus Engine::finish_close() {
  // Every rank posted the same calls (posted_) and every engine sent one notice per call: the
  // decider takes them all, so that no message is left in flight on ccomm.
  const std::uint64_t posted = [&] {
    std::lock_guard<std::mutex> lock(mu_);
    return posted_;
  }();
  const auto poll = std::chrono::microseconds(cfg_.poll_us);
  if (rank_ == kDecider) {
    while (notices_received_ < posted * static_cast<std::uint64_t>(size_ - 1)) {
      if (MpiStatus s = receive_notices(); !s.ok()) return s;
      std::this_thread::sleep_for(poll);
    }
    if (notice_req_ != MPI_REQUEST_NULL) {
      MPI_Cancel(&notice_req_);
      PAPCOLL_MPI_TRY(MPI_Wait(&notice_req_, MPI_STATUS_IGNORE), "MPI_Wait");
    }
  }
  while (!notices_.empty() || !trigger_sends_.empty()) {
    if (MpiStatus s = test_sends(); !s.ok()) return s;
    if (!notices_.empty() || !trigger_sends_.empty()) std::this_thread::sleep_for(poll);
  }
  if (trigger_req_ != MPI_REQUEST_NULL) {
    MPI_Cancel(&trigger_req_);
    PAPCOLL_MPI_TRY(MPI_Wait(&trigger_req_, MPI_STATUS_IGNORE), "MPI_Wait");
  }
  long long mine = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    mine = carry_count_;
    mine += static_cast<long long>(results_.size());  // none: each is picked up by a post
  }
  PAPCOLL_MPI_TRY(MPI_Allreduce(&mine, &pending_at_close_, 1, MPI_LONG_LONG, MPI_SUM, ccomm_),
                  "MPI_Allreduce");
  std::lock_guard<std::mutex> lock(mu_);
  exited_ = true;
  return {};
}

int Engine::close() {
  const char* who = "papcoll_stale_free: ";
  long long pending = 0;
  if (size_ > 1) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      closing_ = true;
      wake_engine_.notify_one();
    }
    thread_.join();
    --g_stale_threads;
    pending = pending_at_close_;
  } else {
    pending = carry_count_;
    exited_ = true;
  }
  const bool broken = broken_;
  free_comms();
  if (broken) return fail(PAPCOLL_ERR_MPI, who + broken_message_);
  if (pending > 0)
    return fail(PAPCOLL_ERR_ARG, std::string(who) + std::to_string(pending) +
                                     " contribution(s) were still pending and are dropped; call "
                                     "papcoll_stale_flush after the last call");
  return PAPCOLL_SUCCESS;
}

void Engine::shutdown() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    wake_engine_.notify_one();
  }
  thread_.join();
  --g_stale_threads;
  std::lock_guard<std::mutex> lock(mu_);
  exited_ = true;
  wake_main_.notify_all();
}

}  // namespace papcoll::stale
