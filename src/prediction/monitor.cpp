#include "prediction/monitor.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <system_error>
#include <tuple>

#include "error/error.hpp"
#include "schedule/registry.hpp"

namespace papcoll::prediction {

namespace {

// Tags. xcomm: the two exchanges. tcomm: clock sync, then warm-up messages (tag kTagWarm + call
// number mod kWarmTags, so the warm-ups of consecutive calls never match each other's messages).
constexpr int kTagEdge = 1;
constexpr int kTagMeasured = 2;
constexpr int kTagSync = 3;
constexpr int kTagWarm = 16;
constexpr int kWarmTags = 8192;  // kTagWarm + kWarmTags - 1 < 32767, the smallest MPI_TAG_UB

std::atomic<int> g_monitors{0}, g_threads{0}, g_comms{0}, g_requests{0};
std::atomic<long> g_mismatched{0};
std::atomic<long> g_measured{0};

// Monitors alive, for MPI_Finalize.
std::mutex g_registry_mutex;
std::vector<Monitor*> g_registry;

int finalize_hook(MPI_Comm, int, void*, void*) {
  Monitor::close_all_at_finalize();
  return MPI_SUCCESS;
}

// MPI_Finalize deletes MPI_COMM_SELF's attributes first, while MPI is still fully usable: the
// place to stop threads and free the duplicates (as executor/comm_context.cpp does).
MpiStatus install_finalize_hook() {
  static const MpiStatus status = [] {
    int key = MPI_KEYVAL_INVALID;
    MpiStatus s =
        mpi_check(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_hook, &key, nullptr),
                  "MPI_Comm_create_keyval");
    if (s.ok()) s = mpi_check(MPI_Comm_set_attr(MPI_COMM_SELF, key, nullptr), "MPI_Comm_set_attr");
    return s;
  }();
  return status;
}

const char* thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE";
  }
  return "an unknown level";
}

}  // namespace

double steady_seconds() {
#ifdef PAPCOLL_SMPI
  // Under SimGrid SMPI (docs/smpi.md) the host's clock is not the simulated one; MPI_Wtime is.
  return MPI_Wtime();
#else
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
#endif
}

DebugCounters debug_counters() {
  DebugCounters c;
  c.monitors = g_monitors.load();
  c.threads = g_threads.load();
  c.comms = g_comms.load();
  c.requests = g_requests.load();
  c.mismatched = g_mismatched.load();
  c.measured = g_measured.load();
  return c;
}

// ------------------------------------------------------------------------------------------------
// Creation and destruction

int Monitor::create(MPI_Comm comm, const papcoll_monitor_config& cfg, Monitor** out) {
  const std::string who = "papcoll_monitor_create: ";
  auto arg = [&](const std::string& m) { return fail(PAPCOLL_ERR_ARG, who + m); };
  auto mpi = [&](const MpiStatus& s) { return fail(PAPCOLL_ERR_MPI, who + describe(s)); };
  *out = nullptr;
  if (cfg.version != PAPCOLL_MONITOR_CONFIG_VERSION)
    return arg("config version is " + std::to_string(cfg.version) +
               " (call papcoll_monitor_config_init)");
  if (cfg.mode != PAPCOLL_MONITOR_EDGE && cfg.mode != PAPCOLL_MONITOR_HISTORY)
    return arg("mode " + std::to_string(cfg.mode) + " is not a papcoll_monitor_mode");
  if (cfg.predictor < PAPCOLL_PREDICT_LAST || cfg.predictor > PAPCOLL_PREDICT_EMA)
    return arg("predictor " + std::to_string(cfg.predictor) + " is not a papcoll_predictor");
  if (cfg.window < 1 || cfg.window > 1024) return arg("window must be in 1..1024");
  if (!(cfg.ema_alpha > 0 && cfg.ema_alpha <= 1)) return arg("ema_alpha must be in (0, 1]");
  if (cfg.warmup_messages < 0 || cfg.warmup_messages > 64)
    return arg("warmup_messages must be in 0..64");
  if (cfg.sync_samples < 1 || cfg.sync_samples > 1000)
    return arg("sync_samples must be in 1..1000");
  if (!(cfg.horizon > 0) || !std::isfinite(cfg.horizon)) return arg("horizon must be > 0");
  if (cfg.poll_us < 1 || cfg.poll_us > 100000) return arg("poll_us must be in 1..100000");
  if (!std::isfinite(cfg.test_clock_offset)) return arg("test_clock_offset is not finite");
  if (cfg.history_sample < 1 || cfg.history_sample > 1000000)
    return arg("history_sample must be in 1..1000000");
  if (!(cfg.history_spread >= 0) || !std::isfinite(cfg.history_spread))
    return arg("history_spread must be finite and >= 0");
  if (comm == MPI_COMM_NULL) return arg("comm is MPI_COMM_NULL");
  int inter = 0, initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized) return arg("MPI is not initialised or already finalised");
  if (int rc = MPI_Comm_test_inter(comm, &inter); rc != MPI_SUCCESS)
    return mpi({rc, "MPI_Comm_test_inter"});
  if (inter) return arg("intercommunicators are not supported");
  if (MpiStatus s = install_finalize_hook(); !s.ok()) return mpi(s);
  int provided = MPI_THREAD_SINGLE;
  if (int rc = MPI_Query_thread(&provided); rc != MPI_SUCCESS) return mpi({rc, "MPI_Query_thread"});

  std::unique_ptr<Monitor> m(new Monitor());
  Settings& st = m->set_;
  st.thread = cfg.mode == PAPCOLL_MONITOR_EDGE;
  st.predictor.kind = static_cast<PredictorKind>(cfg.predictor);
  st.predictor.window = cfg.window;
  st.predictor.ema_alpha = cfg.ema_alpha;
  st.warmup_messages = cfg.warmup_messages;
  st.sync_samples = cfg.sync_samples;
  st.horizon = cfg.horizon;
  st.poll_us = cfg.poll_us;
  st.test_clock_offset = cfg.test_clock_offset;
  st.history_sample = cfg.history_sample;
  st.history_spread = cfg.history_spread;
  m->history_ = HistoryTable(st.predictor);

  // Collective from here on; every rank gets the same outcome.
  MpiStatus s = mpi_check(MPI_Comm_dup(comm, &m->xcomm_), "MPI_Comm_dup");
  if (s.ok()) {
    ++g_comms;
    s = mpi_check(MPI_Comm_dup(comm, &m->tcomm_), "MPI_Comm_dup");
    if (s.ok()) ++g_comms;
  }
  for (MPI_Comm c : {m->xcomm_, m->tcomm_})
    if (s.ok())
      s = mpi_check(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  if (s.ok()) s = mpi_check(MPI_Comm_rank(m->xcomm_, &m->rank_), "MPI_Comm_rank");
  if (s.ok()) s = mpi_check(MPI_Comm_size(m->xcomm_, &m->size_), "MPI_Comm_size");
  if (!s.ok()) {
    m->free_comms();
    return mpi(s);
  }
  // The thread level may in principle differ between ranks: agree before anyone starts a thread.
  int my_ok = (!st.thread || provided >= MPI_THREAD_MULTIPLE) ? 1 : 0, all_ok = 0;
  s = mpi_check(MPI_Allreduce(&my_ok, &all_ok, 1, MPI_INT, MPI_MIN, m->xcomm_), "MPI_Allreduce");
  if (!s.ok()) {
    m->free_comms();
    return mpi(s);
  }
  if (!all_ok) {
    m->free_comms();
    return fail(PAPCOLL_ERR_THREAD,
                who +
                    "edge mode runs a background thread that calls MPI and needs "
                    "MPI_THREAD_MULTIPLE; this rank has " +
                    thread_level_name(provided) + (my_ok ? " but another rank has less" : "") +
                    ". Initialise MPI with MPI_Init_thread(..., MPI_THREAD_MULTIPLE, ...) or use "
                    "papcoll_monitor_create_config with mode = PAPCOLL_MONITOR_HISTORY "
                    "(no thread)");
  }
  s = sync_clocks(
      m->tcomm_, st.sync_samples, kTagSync, [&] { return m->local_now(); }, &m->clock_);
  if (!s.ok()) {
    m->free_comms();
    return mpi(s);
  }
  if (const char* v = std::getenv("PAPCOLL_MONITOR_VERBOSE"); v != nullptr && *v == '1')
    std::fprintf(stderr,
                 "papcoll monitor: rank %d of %d: clock offset to rank 0 %.6f s +- %.1f us "
                 "(shortest round trip %.1f us), mode %s\n",
                 m->rank_, m->size_, m->clock_.offset, m->clock_.width * 0.5e6, m->clock_.rtt * 1e6,
                 st.thread ? "edge" : "history");
  if (st.thread) {
    try {
      m->thread_ = std::thread(&Monitor::thread_main, m.get());
    } catch (const std::system_error& e) {
      m->free_comms();
      return fail(PAPCOLL_ERR_INTERNAL, who + "cannot start the monitor thread: " + e.what());
    }
    ++g_threads;
  }
  ++g_monitors;
  {
    std::lock_guard<std::mutex> lock(g_registry_mutex);
    g_registry.push_back(m.get());
  }
  *out = m.release();
  return PAPCOLL_SUCCESS;
}

Monitor::~Monitor() {
  // close() joins; a monitor deleted without it (after a failed creation) has no thread.
  if (thread_.joinable()) stop_thread();
  std::lock_guard<std::mutex> lock(g_registry_mutex);
  g_registry.erase(std::remove(g_registry.begin(), g_registry.end(), this), g_registry.end());
}

double Monitor::local_now() const { return steady_seconds() + set_.test_clock_offset; }

void Monitor::free_comms() {
  for (MPI_Comm* c : {&xcomm_, &tcomm_})
    if (*c != MPI_COMM_NULL) {
      MPI_Comm_free(c);
      --g_comms;
    }
}

// ------------------------------------------------------------------------------------------------
// Requests. All calls below run with mu_ held.

MpiStatus Monitor::post(int is_send, void* buf, int count, MPI_Datatype type, int peer, int tag,
                        MPI_Comm comm, std::vector<MPI_Request>& into) {
  MPI_Request r = MPI_REQUEST_NULL;
  const int rc = is_send ? MPI_Isend(buf, count, type, peer, tag, comm, &r)
                         : MPI_Irecv(buf, count, type, peer, tag, comm, &r);
  if (rc != MPI_SUCCESS) return {rc, is_send ? "MPI_Isend" : "MPI_Irecv"};
  into.push_back(r);
  ++g_requests;
  return {};
}

MpiStatus Monitor::test_all_locked(std::vector<MPI_Request>& reqs, bool* done) {
  int flag = 1;
  if (!reqs.empty()) {
    PAPCOLL_MPI_TRY(MPI_Testall(static_cast<int>(reqs.size()), reqs.data(), &flag,
                                MPI_STATUSES_IGNORE),
                    "MPI_Testall");
  }
  if (flag) {
    g_requests -= static_cast<int>(reqs.size());
    reqs.clear();
  }
  *done = flag != 0;
  return {};
}

MpiStatus Monitor::wait_all_locked(std::vector<MPI_Request>& reqs) {
  if (reqs.empty()) return {};
  PAPCOLL_MPI_TRY(MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE),
                  "MPI_Waitall");
  g_requests -= static_cast<int>(reqs.size());
  reqs.clear();
  return {};
}

// ------------------------------------------------------------------------------------------------
// The edge exchange

MpiStatus Monitor::start_edge_locked(const Contribution& c) {
  e_.mine = c;
  e_.mine.seq = static_cast<double>(seq_);
  e_.all.assign(static_cast<size_t>(size_), Contribution{});
  e_.all[rank_] = e_.mine;
  e_.started = true;
  for (int r = 0; r < size_; ++r) {
    if (r == rank_) continue;
    if (MpiStatus s = post(0, &e_.all[r], 4, MPI_DOUBLE, r, kTagEdge, xcomm_, e_.reqs); !s.ok())
      return s;
    if (MpiStatus s = post(1, &e_.mine, 4, MPI_DOUBLE, r, kTagEdge, xcomm_, e_.reqs); !s.ok())
      return s;
  }
  return {};
}

// Runs exactly once per edge exchange on every rank, on identical data: so the warm-up duties
// (which need a matching receive on the neighbour) are the same set everywhere.
void Monitor::complete_edge_locked() {
  e_.complete = true;
  SanitizeParams prm;
  prm.horizon = set_.horizon;
  e_.agreed = sanitize_contributions(e_.all, prm);
  if (!e_.agreed.consistent) ++g_mismatched;
  if (e_.agreed.all_edge && set_.warmup_messages > 0 && size_ > 1) {
    // The ring the next collective will use: PRR and SLT place ranks in arrival order.
    const std::vector<int> order =
        arrival_order(size_, e_.agreed.usable ? e_.agreed.relative : std::vector<double>{});
    const int pos = static_cast<int>(std::find(order.begin(), order.end(), rank_) - order.begin());
    warm_duties_.push_back(
        WarmDuty{seq_, order[(pos + 1) % size_], order[(pos + size_ - 1) % size_]});
  }
}

MpiStatus Monitor::post_warmup_locked(const WarmDuty& d) {
  const int tag = kTagWarm + static_cast<int>(d.seq % kWarmTags);
  warm_buf_.assign(static_cast<size_t>(set_.warmup_messages), 0);
  for (int k = 0; k < set_.warmup_messages; ++k) {
    if (MpiStatus s = post(0, &warm_buf_[k], 1, MPI_INT, d.pred, tag, tcomm_, warm_reqs_); !s.ok())
      return s;
    if (MpiStatus s = post(1, &warm_token_, 1, MPI_INT, d.succ, tag, tcomm_, warm_reqs_); !s.ok())
      return s;
  }
  return {};
}

// ------------------------------------------------------------------------------------------------
// The measured exchange (history)

// Sampling (docs/prediction.md, "Sampling"): a site is measured on every call while its newest
// measured pattern or its prediction is imbalanced (spread >= history_spread) and the calls use
// what is measured, and otherwise on one call in history_sample, so a balanced program, or one
// whose imbalance nothing acts on, pays the p - 1 messages of the exchange rarely. The calls stop
// using it (`unused`) after kUnusedCalls imbalanced predictions in a row that ran an algorithm
// reading no arrival times: auto judged them too small to act on (arrivals scattered by noise,
// ranks sharing cores), or the algorithm is fixed; a call running one that reads them starts
// over. Such a site gets no prediction, except on the call after a sample that came out more
// than kConfirmGrowth times as imbalanced as the newest unused prediction: that call is measured
// too and predicted from the sample's pattern alone (the confirmation: is this worth acting
// on?), so a straggler that appeared is acted on at once. A pure function of the fed history,
// the call counts and the algorithms the calls ran (every measurement before this call has been
// fed: enter_call and quiet_call complete the one in flight first; every rank's call runs the
// same algorithm), hence the same on every rank.
Monitor::SampleDecision Monitor::sample_locked(int site) {
  if (set_.history_sample <= 1) return {};
  const HistoryTable::Sampling* s = history_.sampling(site);
  if (s == nullptr) return {};
  const bool imbalanced = s->last_spread >= set_.history_spread ||
                          s->predicted_spread >= set_.history_spread;
  const bool unused = s->unused >= kUnusedCalls;
  if (imbalanced && !unused) return {};
  if (imbalanced && s->unmeasured == 0 && s->gap > 0 &&
      s->last_spread > kConfirmGrowth * s->unused_spread)
    return {true, true, true};  // the confirmation
  return {s->unmeasured + 1 >= sample_every(*s), !unused};
}

std::uint64_t Monitor::sample_every(const HistoryTable::Sampling& s) const {
  return s.every != 0 ? s.every : static_cast<std::uint64_t>(set_.history_sample);
}

MpiStatus Monitor::start_measured_locked(double entry, int site) {
  ++g_measured;
  m_.active = true;
  m_.site = site;
  m_.seq = static_cast<double>(seq_);
  m_.mine[0] = entry;
  m_.mine[1] = m_.seq;
  m_.all.assign(2 * static_cast<size_t>(size_), std::numeric_limits<double>::quiet_NaN());
  m_.all[2 * rank_] = m_.mine[0];
  m_.all[2 * rank_ + 1] = m_.mine[1];
  for (int r = 0; r < size_; ++r) {
    if (r == rank_) continue;
    if (MpiStatus s = post(0, &m_.all[2 * r], 2, MPI_DOUBLE, r, kTagMeasured, xcomm_, m_.reqs);
        !s.ok())
      return s;
    if (MpiStatus s = post(1, m_.mine, 2, MPI_DOUBLE, r, kTagMeasured, xcomm_, m_.reqs); !s.ok())
      return s;
  }
  return {};
}

void Monitor::feed_measured_locked() {
  m_.active = false;
  std::vector<double> t(static_cast<size_t>(size_));
  bool consistent = true;
  for (int r = 0; r < size_; ++r) {
    t[r] = m_.all[2 * r];
    if (!(m_.all[2 * r + 1] == m_.seq)) consistent = false;
  }
  if (!consistent) {
    ++g_mismatched;
    return;
  }
  SanitizeParams prm;
  prm.horizon = set_.horizon;
  const AgreedPattern a = sanitize_measured(t, prm);
  if (a.usable) history_.feed(m_.site, a.relative);
}

// ------------------------------------------------------------------------------------------------
// The background thread (edge mode)

MpiStatus Monitor::service_locked() {
  if (edge_posted_ && !e_.started)
    if (MpiStatus s = start_edge_locked(edge_contrib_); !s.ok()) return s;
  if (e_.started && !e_.complete) {
    bool done = false;
    if (MpiStatus s = test_all_locked(e_.reqs, &done); !s.ok()) return s;
    if (done) complete_edge_locked();
  }
  if (warm_reqs_.empty() && !warm_duties_.empty()) {
    const WarmDuty d = warm_duties_.front();
    warm_duties_.pop_front();
    if (MpiStatus s = post_warmup_locked(d); !s.ok()) return s;
  }
  if (!warm_reqs_.empty()) {
    bool done = false;
    if (MpiStatus s = test_all_locked(warm_reqs_, &done); !s.ok()) return s;
  }
  return {};
}

void Monitor::thread_main() {
  std::unique_lock<std::mutex> lock(mu_);
  // Polling while messages are in flight backs off from poll_us to 8 x poll_us while nothing
  // moves (an exchange waiting for a late rank's edge can take the whole computation), and starts
  // again at poll_us after any progress or notification: ranks sharing cores keep their CPU time.
  const auto poll = std::chrono::microseconds(set_.poll_us);
  auto interval = poll;
  while (!stop_) {
    const auto state = [&] {
      return std::make_tuple(e_.started, e_.complete, warm_reqs_.size(), warm_duties_.size());
    };
    const auto before = state();
    if (thread_error_.empty()) {
      const MpiStatus s = service_locked();
      if (!s.ok()) thread_error_ = describe(s);
    }
    const bool busy = thread_error_.empty() &&
                      ((edge_posted_ && !e_.started) || (e_.started && !e_.complete) ||
                       !warm_reqs_.empty() || !warm_duties_.empty());
    if (stop_) break;
    if (!busy) {
      cv_.wait(lock);
      interval = poll;
      continue;
    }
    interval = state() != before ? poll : std::min(interval * 2, poll * 8);
    if (cv_.wait_for(lock, interval) == std::cv_status::no_timeout) interval = poll;
  }
  // Whatever is still in flight is completed by the closing main thread.
}

void Monitor::stop_thread() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) {
    thread_.join();
    --g_threads;
  }
}

// ------------------------------------------------------------------------------------------------
// The application's calls

int Monitor::begin() {
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_) return fail(PAPCOLL_ERR_ARG, "papcoll_monitor_begin: the monitor was shut down");
  have_begin_ = true;
  begin_local_ = local_now();
  return PAPCOLL_SUCCESS;
}

int Monitor::edge(double fraction) {
  const double now = local_now();
  if (!(fraction > 0 && fraction <= 1))
    return fail(PAPCOLL_ERR_ARG,
                "papcoll_monitor_edge: fraction " + std::to_string(fraction) + " is not in (0, 1]");
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return fail(PAPCOLL_ERR_ARG, "papcoll_monitor_edge: the monitor was shut down");
    if (!set_.thread) return PAPCOLL_SUCCESS;  // history mode: nothing to exchange now
    if (!have_begin_)
      return fail(PAPCOLL_ERR_ARG,
                  "papcoll_monitor_edge: no papcoll_monitor_begin since the last collective");
    if (edge_posted_) return PAPCOLL_SUCCESS;  // only the first edge of an iteration counts
    const double remaining = have_inject_ ? inject_
                                          : estimate_remaining(now - begin_local_, fraction);
    have_inject_ = false;
    const double t = clock_.common(now);
    edge_contrib_ = Contribution{t + remaining, t, static_cast<double>(ContributionKind::edge),
                                 static_cast<double>(seq_)};
    edge_posted_ = true;
  }
  cv_.notify_all();
  return PAPCOLL_SUCCESS;
}

int Monitor::inject(double remaining) {
  std::lock_guard<std::mutex> lock(mu_);
  have_inject_ = true;
  inject_ = remaining;
  return PAPCOLL_SUCCESS;
}

int Monitor::pattern(double* out, int count, int* source) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (count != size_)
    return fail(PAPCOLL_ERR_ARG, "papcoll_monitor_pattern: count is " + std::to_string(count) +
                                     ", the communicator has " + std::to_string(size_) + " ranks");
  if (out == nullptr && count > 0) return fail(PAPCOLL_ERR_ARG, "papcoll_monitor_pattern: NULL");
  for (int i = 0; i < count; ++i)
    out[i] = last_pattern_.size() == static_cast<size_t>(count) ? last_pattern_[i] : 0.0;
  if (source != nullptr) *source = last_source_;
  return PAPCOLL_SUCCESS;
}

// ------------------------------------------------------------------------------------------------
// Collective calls

int Monitor::enter_call(MPI_Comm comm, double entry_steady, int site, const char* who,
                        CallPattern* out) {
  const std::string w = std::string(who) + ": monitor: ";
  int cmp = MPI_UNEQUAL;
  if (int rc = MPI_Comm_compare(xcomm_ == MPI_COMM_NULL ? MPI_COMM_SELF : xcomm_, comm, &cmp);
      rc != MPI_SUCCESS)
    return fail(PAPCOLL_ERR_MPI, w + describe({rc, "MPI_Comm_compare"}));
  std::unique_lock<std::mutex> lock(mu_);
  if (closed_) return fail(PAPCOLL_ERR_ARG, w + "it was freed or shut down by MPI_Finalize");
  if (cmp != MPI_CONGRUENT && cmp != MPI_IDENT)
    return fail(PAPCOLL_ERR_ARG, w + "it was created on another communicator");
  if (!thread_error_.empty())
    return fail(PAPCOLL_ERR_MPI, w + "its thread failed: " + thread_error_);
  auto mpi = [&](const MpiStatus& s) { return fail(PAPCOLL_ERR_MPI, w + describe(s)); };

  const double entry = clock_.common(entry_steady + set_.test_clock_offset);
  AgreedPattern agreed;
  if (set_.thread) {
    if (!e_.started) {
      const Contribution at_entry{entry, entry, static_cast<double>(ContributionKind::entry),
                                  static_cast<double>(seq_)};
      if (MpiStatus s = start_edge_locked(edge_posted_ ? edge_contrib_ : at_entry); !s.ok())
        return mpi(s);
    }
    if (!e_.complete) {
      if (MpiStatus s = wait_all_locked(e_.reqs); !s.ok()) return mpi(s);
      complete_edge_locked();
    }
    agreed = std::move(e_.agreed);
    e_ = EdgeExchange{};
  }
  edge_posted_ = false;
  have_begin_ = false;

  if (m_.active) {
    if (MpiStatus s = wait_all_locked(m_.reqs); !s.ok()) return mpi(s);
    feed_measured_locked();
  }
  const SampleDecision decision = sample_locked(site);
  if (decision.measure) {
    if (MpiStatus s = start_measured_locked(entry, site); !s.ok()) return mpi(s);
    if (HistoryTable::Sampling* sm = history_.sampling(site)) {
      sm->gap = sm->unmeasured;
      sm->unmeasured = 0;
    }
  } else if (HistoryTable::Sampling* sm = history_.sampling(site)) {
    ++sm->unmeasured;
  }

  CallPattern cp;
  call_site_ = site;
  handed_spread_ = -1;
  if (agreed.usable) {
    cp.arrivals = std::move(agreed.relative);
    cp.source = PAPCOLL_PATTERN_EDGE;
  } else if (!decision.predict) {
    // no prediction: the calls of this site do not use it (sample_locked)
  } else if (std::vector<double> h = decision.confirm ? history_.newest(site)
                                                      : history_.predict(site);
             !h.empty()) {
    handed_spread_ = HistoryTable::spread(h);
    cp.arrivals = std::move(h);
    cp.source = PAPCOLL_PATTERN_HISTORY;
    cp.sampled = set_.history_sample > 1;
  }
  last_pattern_ = cp.arrivals;
  last_source_ = cp.source;
  ++seq_;
  *out = std::move(cp);
  lock.unlock();
  cv_.notify_all();  // warm-up duties may have been queued
  return PAPCOLL_SUCCESS;
}

bool Monitor::quiet_call(int site, int* following, int every) {
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_ || set_.thread || set_.history_sample <= 1 || !thread_error_.empty()) return false;
  if (m_.active) {
    if (!wait_all_locked(m_.reqs).ok()) return false;  // the full path reports it
    feed_measured_locked();
  }
  if (every > 0) {
    if (HistoryTable::Sampling* s = history_.sampling(site)) s->every = every;
  }
  if (sample_locked(site).measure) return false;
  HistoryTable::Sampling* s = history_.sampling(site);  // not null: a new site is measured
  ++s->unmeasured;
  ++seq_;
  if (following != nullptr) {
    // sample_locked for the next calls: with no feed and no note_use in between, only
    // `unmeasured` moves, and the confirmation needs it at 0; so the next measured call is the
    // one that makes the count reach history_sample.
    const std::uint64_t n = sample_every(*s);
    const std::uint64_t left = s->unmeasured + 1 < n ? n - 1 - s->unmeasured : 0;
    *following = static_cast<int>(std::min<std::uint64_t>(left, 1u << 30));
  }
  return true;
}

void Monitor::count_quiet(int site, int calls) {
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_ || calls <= 0) return;
  HistoryTable::Sampling* s = history_.sampling(site);
  if (s == nullptr) return;
  s->unmeasured += static_cast<std::uint64_t>(calls);
  seq_ += static_cast<std::uint64_t>(calls);
}

void Monitor::note_use(bool arrivals_used) {
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_) return;
  HistoryTable::Sampling* sm = history_.sampling(call_site_);
  if (sm == nullptr) return;
  if (arrivals_used) {
    sm->unused = 0;
  } else if (handed_spread_ >= set_.history_spread) {
    ++sm->unused;
    sm->unused_spread = handed_spread_;
  }
  handed_spread_ = -1;
}

void Monitor::exit_call() {
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_ || !m_.active) return;
  bool done = false;
  if (test_all_locked(m_.reqs, &done).ok() && done) feed_measured_locked();
}

// ------------------------------------------------------------------------------------------------
// Shutdown

MpiStatus Monitor::close_phase1() {
  stop_thread();  // from here on only this thread touches the monitor's MPI state
  std::lock_guard<std::mutex> lock(mu_);
  if (set_.thread && !e_.started) {
    Contribution closing;
    closing.kind = static_cast<double>(ContributionKind::closing);
    closing.seq = static_cast<double>(seq_);
    return start_edge_locked(edge_posted_ ? edge_contrib_ : closing);
  }
  return {};
}

MpiStatus Monitor::close_phase2() {
  std::lock_guard<std::mutex> lock(mu_);
  MpiStatus s;
  if (set_.thread && e_.started && !e_.complete) {
    s = wait_all_locked(e_.reqs);
    if (s.ok()) complete_edge_locked();
  }
  // Warm-ups: what the thread left in flight, then the duties it did not get to. Every rank has
  // the same duties, so every receive has its send.
  if (s.ok()) s = wait_all_locked(warm_reqs_);
  while (s.ok() && !warm_duties_.empty()) {
    const WarmDuty d = warm_duties_.front();
    warm_duties_.pop_front();
    s = post_warmup_locked(d);
    if (s.ok()) s = wait_all_locked(warm_reqs_);
  }
  if (s.ok() && m_.active) {
    s = wait_all_locked(m_.reqs);
    if (s.ok()) feed_measured_locked();
  }
  if (!s.ok()) {
    // Requests that failed may still reference our buffers: leave them (and leak the buffers
    // with the object) rather than free memory MPI might still write.
    for (auto* v : {&e_.reqs, &m_.reqs, &warm_reqs_}) {
      g_requests -= static_cast<int>(v->size());
      v->clear();
    }
  }
  free_comms();
  closed_ = true;
  --g_monitors;
  return s;
}

MpiStatus Monitor::agree_calls(std::uint64_t mine, std::uint64_t* most) {
  *most = mine;
  int finalized = 0;
  MPI_Finalized(&finalized);
  // No lock: a call inside the monitor holds it while it waits for the other ranks, which may be
  // waiting here for this rank. Only the free calls this, before it closes the monitor.
  if (finalized || xcomm_ == MPI_COMM_NULL) return {};
  unsigned long long m = mine, all = mine;
  PAPCOLL_MPI_TRY(MPI_Allreduce(&m, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, xcomm_),
                  "MPI_Allreduce");
  *most = all;
  return {};
}

int Monitor::close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return PAPCOLL_SUCCESS;
  }
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return PAPCOLL_SUCCESS;  // MPI_Finalize closed it (its hook runs first)
  {
    std::lock_guard<std::mutex> lock(g_registry_mutex);
    g_registry.erase(std::remove(g_registry.begin(), g_registry.end(), this), g_registry.end());
  }
  MpiStatus s = close_phase1();
  const MpiStatus s2 = close_phase2();
  if (s.ok()) s = s2;
  return s.ok() ? PAPCOLL_SUCCESS : fail(PAPCOLL_ERR_MPI, "papcoll_monitor_free: " + describe(s));
}

void Monitor::close_all_at_finalize() {
  std::vector<Monitor*> live;
  {
    std::lock_guard<std::mutex> lock(g_registry_mutex);
    live.swap(g_registry);
  }
  // Phase 1 on every monitor before phase 2 on any: all contributions are sent before anyone
  // waits, so monitors on different communicators (created in different orders on different
  // ranks) cannot wait for each other.
  for (Monitor* m : live) (void)m->close_phase1();
  for (Monitor* m : live) (void)m->close_phase2();
}

}  // namespace papcoll::prediction
