// libpapcoll-intercept: papcoll under an unmodified MPI program (LD_PRELOAD), through MPI's
// profiling interface. Each wrapped collective goes to papcoll with the algorithm its environment
// variable names (intercept_config.hpp), or straight to the PMPI_ function for "native".
//
// When papcoll refuses a call and every rank of the call refuses it alike (PAPCOLL_ERR_ARG,
// PAPCOLL_ERR_ALGORITHM, PAPCOLL_ERR_OP: an intercommunicator, a datatype it cannot run,
// MPI_COMM_NULL, a non-commutative op for an algorithm that reorders, a bad root; scatterv/gatherv:
// the root's verdict on its arguments, which papcoll broadcasts; PAPCOLL_ERR_MODEL: the root's
// link model), every rank then runs the MPI library's collective instead, which also applies
// MPI's own argument checks and error handler. A refusal only this rank sees (a NULL buffer, a
// scatterv/gatherv rank's own count or type: papcoll::last_error_is_local()) cannot be handed
// over, since the other ranks went on with papcoll; like a failure after papcoll started
// communicating it goes to the communicator's error handler (MPI_ERR_ARG, or MPI_ERR_OTHER) with
// papcoll's message on stderr.
//
// Arrival history: allreduce and reduce calls whose algorithm reads arrival times ("auto", or
// AlgorithmInfo::uses_arrivals: late-fold, prr, slt, clairvoyant) get a history-mode progress
// monitor per communicator (created at the first such call, freed with the communicator or at
// MPI_Finalize), so "auto" can tell balanced from imbalanced patterns in a program that never calls
// the monitor (docs/intercept.md).
//
// papcoll's own MPI calls (its "native" paths, agreement broadcasts) come back through these
// wrappers; a per-thread depth counter sends them to PMPI_ directly.
#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "api/call_check.hpp"
#include "error/error.hpp"
#include "intercept/intercept_config.hpp"
#include "intercept/intercept_observe.hpp"
#include "intercept/intercept_quick.hpp"
#include "intercept/intercept_stats.hpp"
#include "observe/comm_observer.hpp"
#include "papcoll/papcoll.h"
#include "prediction/monitor.hpp"
#include "schedule/registry.hpp"

namespace papcoll::intercept {
namespace {

// initial-exec: the library is loaded at start-up (LD_PRELOAD or linked), so its TLS is static and
// a call does not go through __tls_get_addr.
__attribute__((tls_model("initial-exec"))) thread_local int t_depth = 0;

struct Inside {
  Inside() { ++t_depth; }
  ~Inside() { --t_depth; }
  Inside(const Inside&) = delete;
  Inside& operator=(const Inside&) = delete;
};

// Refusals every rank of the call sees alike (unless papcoll::last_error_is_local()).
bool refused_before_communicating(int rc) {
  return rc == PAPCOLL_ERR_ARG || rc == PAPCOLL_ERR_ALGORITHM || rc == PAPCOLL_ERR_OP ||
         rc == PAPCOLL_ERR_MODEL;
}

double bytes_of(long long count, MPI_Datatype type) {
  int size = 0;
  if (type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS) return 0;
  return static_cast<double>(count) * size;
}

// What the interposition library keeps per communicator, as an attribute (so a freed
// communicator's handle, reused by MPI for a new one, never finds the old state): the
// history-mode monitor and whether the root's link model failed on it.
// Incremented whenever a CommState is deleted: comm_state's per-thread cache is stale then (an
// attribute lookup takes a lock and a hash in the MPI library, and a program calls collectives on
// the same communicator over and over).
std::atomic<unsigned long> g_state_deletions{0};

struct CommState {
  papcoll_monitor monitor = nullptr;
  bool monitor_failed = false;
  bool model_unusable = false;  // PAPCOLL_ERR_MODEL seen: scatterv/gatherv go to MPI
  // Byte counts of MPI_Bcast for which `auto` ran the MPI library's broadcast
  // (balanced_bcast_call), and the latest one used (quick_known_bcast).
  std::vector<long long> native_bcast_bytes;
  long long last_native_bcast = -1;
  // Quiet calls that the monitor handed out ahead (Monitor::quiet_call's `following`), for the
  // last few history sites that got some: the next `left` calls of (op, bytes, root) go to the
  // MPI library without asking it; `used` of them are counted into it (flush_quiet_calls) before
  // anything else reaches the monitor. A site's hand-out outlives other sites' calls: nothing
  // another site does changes this site's decisions (only its own measurements, counts and
  // algorithms do), so a loop of several sites keeps them all.
  struct QuietCalls {
    int left = 0, used = 0, site = 0;
    Operation op = Operation::allreduce;
    double bytes = -1;
    int root = -1;
  };
  static constexpr int kQuietSites = 4;
  QuietCalls quiet[kQuietSites];
};

void flush_quiet_calls(CommState* st) {
  for (CommState::QuietCalls& q : st->quiet) {
    if (q.used > 0 && st->monitor != nullptr)
      prediction::monitor_count_quiet(st->monitor, q.site, q.used);
    q.used = 0;
  }
}

int delete_state(MPI_Comm, int, void* attr, void*) {
  const Inside inside;  // papcoll_monitor_free's own MPI calls must not come back here
  auto* st = static_cast<CommState*>(attr);
  g_state_deletions.fetch_add(1, std::memory_order_acq_rel);  // every thread's cache is stale now
  flush_quiet_calls(st);
  if (st->monitor != nullptr) (void)papcoll_monitor_free(&st->monitor);
  delete st;
  return MPI_SUCCESS;
}

int state_keyval() {
  static const int key = [] {
    int k = MPI_KEYVAL_INVALID;
    if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_state, &k, nullptr) != MPI_SUCCESS)
      return static_cast<int>(MPI_KEYVAL_INVALID);
    return k;
  }();
  return key;
}

// The last communicator this thread looked up (comm_state), valid while no CommState was deleted
// since (g_state_deletions).
// Constant-initialised (no MPI_COMM_NULL, which is no constant in every MPI; `state` says
// whether an entry is there): a thread_local with a dynamic initialiser gets a guard that is
// reached through __tls_get_addr on every access, initial-exec or not (it cost the quick
// broadcast about 7 % of an 8-byte MPI_Bcast at 2 ranks).
struct StateCache {
  MPI_Comm comm{};
  CommState* state = nullptr;
  unsigned long deletions = 0;
};
__attribute__((tls_model("initial-exec"))) constinit thread_local StateCache t_state_cache;

CommState* comm_state_lookup(MPI_Comm comm);

// nullptr when the communicator cannot carry an attribute (MPI_COMM_NULL, ...).
CommState* comm_state(MPI_Comm comm) {
  StateCache& c = t_state_cache;
  const unsigned long deletions = g_state_deletions.load(std::memory_order_acquire);
  if (c.state != nullptr && c.comm == comm && c.deletions == deletions) return c.state;
  CommState* st = comm_state_lookup(comm);
  if (st != nullptr) c = StateCache{comm, st, deletions};
  return st;
}

CommState* comm_state_lookup(MPI_Comm comm) {
  const int key = state_keyval();
  if (comm == MPI_COMM_NULL || key == MPI_KEYVAL_INVALID) return nullptr;
  void* value = nullptr;
  int found = 0;
  if (PMPI_Comm_get_attr(comm, key, &value, &found) != MPI_SUCCESS) return nullptr;
  if (found) return static_cast<CommState*>(value);
  auto* st = new CommState;
  if (PMPI_Comm_set_attr(comm, key, st) != MPI_SUCCESS) {
    delete st;
    return nullptr;
  }
  return st;
}

// The call-site key of the history: the same for calls of one operation with the same bytes and
// root (the interposition library cannot see the program's call site), identical on every rank.
int history_site(Operation op, double bytes, int root) {
  std::uint64_t h = 1469598103934665603ULL;
  for (std::uint64_t v : {static_cast<std::uint64_t>(op), static_cast<std::uint64_t>(bytes),
                          static_cast<std::uint64_t>(static_cast<std::int64_t>(root))}) {
    h ^= v;
    h *= 1099511628211ULL;
  }
  return static_cast<int>(h & 0x7fffffff);
}

// What a wrapper tells dispatch about its call.
struct CallInfo {
  Operation op;
  MPI_Comm comm;
  double bytes;   // this rank's data, for the summary
  int root = -1;  // rooted operations
  // Bytes every rank passes alike (allreduce, reduce: count * size), deciding whether the call
  // gets the arrival history; -1: never.
  double agreed_bytes = -1;
  // The report's key: what every rank passes alike (bcast's count * size too), -1 where it is
  // not agreed (the v-collectives).
  double agreed_bytes_or_own() const {
    return agreed_bytes >= 0 ? agreed_bytes : op == Operation::bcast ? bytes : -1;
  }
};

// The history monitor for an allreduce/reduce call, or nullptr. Every input of the decision
// (environment, algorithm, agreed bytes, communicator size) is the same on every rank, and the
// monitor is created collectively inside a call every rank makes.
bool reads_link_model(Operation op, const std::string& algorithm) {
  if (algorithm == "auto") return true;
  const AlgorithmInfo* a = find_algorithm(
      op == Operation::scatterv ? Collective::scatterv : Collective::gatherv, algorithm);
  return a != nullptr && a->uses_link_model;
}

papcoll_monitor history_monitor(const CallInfo& info, const OperationChoice& choice) {
  const Config& cfg = config();
  if (!cfg.history || info.agreed_bytes < 0 ||
      info.agreed_bytes < static_cast<double>(cfg.history_min_bytes) || info.agreed_bytes == 0)
    return nullptr;
  if (!choice.is_auto) {  // else only the algorithms that read arrival times (registry)
    const Collective c = info.op == Operation::reduce ? Collective::reduce : Collective::allreduce;
    const AlgorithmInfo* a = find_algorithm(c, choice.algorithm);
    if (a == nullptr || !a->uses_arrivals) return nullptr;
  }
  int size = 1, inter = 0;
  if (PMPI_Comm_test_inter(info.comm, &inter) != MPI_SUCCESS || inter) return nullptr;
  if (PMPI_Comm_size(info.comm, &size) != MPI_SUCCESS || size < 2) return nullptr;
  CommState* st = comm_state(info.comm);
  if (st == nullptr || st->monitor_failed) return nullptr;
  flush_quiet_calls(st);  // the monitor counts the calls it handed out before it sees this one
  if (st->monitor == nullptr) {
    papcoll_monitor_config mc;
    papcoll_monitor_config_init(&mc);
    mc.mode = PAPCOLL_MONITOR_HISTORY;
    mc.history_sample = cfg.history_sample;
    if (papcoll_monitor_create_config(info.comm, &mc, &st->monitor) != PAPCOLL_SUCCESS) {
      st->monitor = nullptr;
      st->monitor_failed = true;
      std::fprintf(stderr, "papcoll-intercept: no arrival history on a communicator: %s\n",
                   papcoll_last_error());
      return nullptr;
    }
  }
  return st->monitor;
}

void warn_model_once(const char* why) {
  static std::atomic<bool> warned{false};
  if (!warned.exchange(true))
    std::fprintf(stderr,
                 "papcoll-intercept: PAPCOLL_MODEL=%s cannot be used (%s); MPI_Scatterv and "
                 "MPI_Gatherv on that communicator use the MPI library's collective\n",
                 config().model_file.c_str(), why);
}

// No tax on balanced calls (docs/intercept.md): an all-reduce or reduce under `auto`
// that has no arrival pattern to go by runs the MPI library's collective (selection.cpp: auto
// without arrivals is native), so it goes there directly, skipping papcoll's argument handling and
// selection. Without a history monitor there is no pattern; with one, the monitor says whether
// this call is neither measured nor predicted imbalanced (sampling, docs/prediction.md), from
// inputs identical on every rank, so every rank takes the same path. PAPCOLL_CHECK=1 always takes
// the full path, which checks the call.
// A site's sampling interval: PAPCOLL_HISTORY_SAMPLE (N) calls from 1 MiB on, and N times
// ceil(1 MiB / bytes) below, at most 16 N (docs/prediction.md, "Sampling"). A measured call costs
// about the same at every size (p - 1 small messages, papcoll's full path, the wait for the
// other ranks' entries: 5 to 7 us at 2 ranks here), so the samples come at about the same
// interval in time at every size, and their share of a small call's time stays small (64 KiB
// all-reduce and reduce: 1 in 256). The bytes are the ones every rank passes: the same interval
// everywhere. 0 (the monitor's own) when N is 1: every call measured.
int history_sample_every(double bytes) {
  const int n = config().history_sample;
  if (n <= 1 || !(bytes > 0)) return 0;
  constexpr double kMiB = 1048576.0;
  const double factor = std::min(16.0, std::ceil(kMiB / bytes));
  return static_cast<int>(std::min(1e9, n * std::max(1.0, factor)));
}

bool balanced_auto_call(const CallInfo& info, const OperationChoice& choice,
                        papcoll_monitor monitor, int site) {
  if (!choice.is_auto || check_mode()) return false;
  if (info.op != Operation::allreduce && info.op != Operation::reduce) return false;
  if (monitor == nullptr) return true;
  int following = 0;
  if (!prediction::monitor_quiet_call(monitor, site, &following,
                                      history_sample_every(info.agreed_bytes)))
    return false;
  if (following > 0) {
    if (CommState* st = comm_state(info.comm); st != nullptr && st->monitor == monitor) {
      // The site's slot (the monitor answered, so its count is in: history_monitor flushed),
      // else one without calls left, else the first.
      CommState::QuietCalls* slot = nullptr;
      for (CommState::QuietCalls& q : st->quiet)
        if (q.left > 0 && q.site == site && q.op == info.op && q.bytes == info.agreed_bytes &&
            q.root == info.root)
          slot = &q;
      for (CommState::QuietCalls& q : st->quiet)
        if (slot == nullptr && q.left <= 0) slot = &q;
      if (slot == nullptr) slot = &st->quiet[0];
      *slot = CommState::QuietCalls{following, 0, site, info.op, info.agreed_bytes, info.root};
    }
  }
  return true;
}

// A call the monitor handed out ahead as quiet (balanced_auto_call): the same decision as
// asking it (every rank holds the same hand-out), without the monitor's locks, its site lookup
// or the communicator queries on the way there (the calls between two samples of a balanced
// site, which must cost no more than the MPI library's own call: docs/intercept.md).
bool handed_out_quiet_call(const CallInfo& info, const OperationChoice& choice) {
  if (!choice.is_auto || (info.op != Operation::allreduce && info.op != Operation::reduce))
    return false;
  CommState* st = comm_state(info.comm);
  if (st == nullptr || check_mode()) return false;
  for (CommState::QuietCalls& q : st->quiet) {
    if (q.left > 0 && q.op == info.op && q.bytes == info.agreed_bytes && q.root == info.root) {
      --q.left;
      ++q.used;
      return true;
    }
  }
  return false;  // another call: history_monitor counts the used ones first
}

// The same for MPI_Bcast under `auto` (no arrival history there): its decision reads only what
// every rank agrees on (the communicator's size and network parameters, the bytes of the type
// signature), so once papcoll has run the MPI library's broadcast for a byte count on a
// communicator, every rank knows the outcome of the next call with that count and goes there
// directly. A bounded list: a program with many distinct sizes keeps papcoll's path for the rest.
constexpr size_t kNativeBcastSizes = 64;

CommState* balanced_bcast_state(const CallInfo& info, const OperationChoice& choice) {
  if (info.op != Operation::bcast || !choice.is_auto || check_mode()) return nullptr;
  return comm_state(info.comm);
}

bool known_native_bcast(CommState* st, double bytes) {
  if (st == nullptr) return false;
  const long long b = static_cast<long long>(bytes);
  if (std::find(st->native_bcast_bytes.begin(), st->native_bcast_bytes.end(), b) ==
      st->native_bcast_bytes.end())
    return false;
  st->last_native_bcast = b;
  return true;
}

// The steady state of a broadcast loop under `auto` (intercept_quick.hpp), giving the call's
// bytes, else -1: the communicator is the one this thread looked up last (comm_state caches only
// states it found), and the byte count the one it ran as the MPI library's broadcast last time,
// whose decision reads only agreed inputs (balanced_bcast_state), so it is the same again.
// (Inside papcoll, t_depth > 0, dispatch runs the MPI library's call too.)
inline bool quick_known_bcast_bytes(long long bytes, MPI_Comm comm) {
  if (!g_quick_bcast_auto) return false;
  const StateCache& c = t_state_cache;
  return c.state != nullptr && c.comm == comm &&
         c.deletions == g_state_deletions.load(std::memory_order_acquire) &&
         c.state->last_native_bcast == bytes;
}
long long quick_known_bcast(int count, MPI_Datatype type, MPI_Comm comm) {
  const long long bytes = call_bytes(count, type);
  return bytes >= 0 && quick_known_bcast_bytes(bytes, comm) ? bytes : -1;
}

// The MPI error class a papcoll error becomes under the MPI signature: an argument papcoll
// refused on this rank, or anything else (another rank's error, PAPCOLL_ERR_PEER; a failure
// after papcoll started communicating).
int mpi_error_class(int papcoll_code) {
  switch (papcoll_code) {
    case PAPCOLL_ERR_ARG:
    case PAPCOLL_ERR_ALGORITHM:
    case PAPCOLL_ERR_ARRIVALS: return MPI_ERR_ARG;
    case PAPCOLL_ERR_OP: return MPI_ERR_OP;
    default: return MPI_ERR_OTHER;
  }
}

template <typename RunPapcoll, typename RunNative>
int dispatch(const CallInfo& info, RunPapcoll run_papcoll, RunNative run_native) {
  if (t_depth > 0) return run_native();
  const Inside inside;
  const Operation op = info.op;
  const MPI_Comm comm = info.comm;
  const Config& cfg = config();
  const OperationChoice& choice = cfg[op];
  // The per-call statistics exist for PAPCOLL_VERBOSE's summary only: without it a call reads no
  // clock and takes no lock (no tax on balanced calls, docs/intercept.md).
  const bool timed = cfg.verbose;
  const double t0 = timed ? PMPI_Wtime() : 0.0;
  auto since = [timed](double start) { return timed ? PMPI_Wtime() - start : 0.0; };
  // Calls to the MPI library are observed for the report and the watchdog (intercept_observe.hpp).
  auto native = [&] {
    return observed_native(op, comm, static_cast<long long>(info.agreed_bytes_or_own()), info.root,
                           run_native);
  };
  auto native_recorded = [&] {
    const int rc = native();
    if (timed) record_call(op, comm, "native", info.bytes, since(t0));
    return rc;
  };
  if (choice.native) return native_recorded();
  // Balanced calls under auto go to the MPI library before anything else is prepared.
  if (handed_out_quiet_call(info, choice)) return native_recorded();
  const papcoll_monitor monitor = history_monitor(info, choice);
  const int site = monitor != nullptr ? history_site(op, info.agreed_bytes, info.root) : 0;
  if (balanced_auto_call(info, choice, monitor, site)) return native_recorded();
  CommState* bcast_state = balanced_bcast_state(info, choice);
  if (known_native_bcast(bcast_state, info.bytes)) return native_recorded();

  papcoll_options opt;
  papcoll_options_init(&opt);
  opt.algorithm = choice.algorithm.c_str();
  opt.monitor = monitor;
  opt.monitor_site = site;
  const bool sg = op == Operation::scatterv || op == Operation::gatherv;
  // The link model goes to the scatterv/gatherv trees that read it (the registry's
  // uses_link_model, and auto, which compares them); only the root's counts.
  CommState* model_state = nullptr;
  if (sg && !config().model_file.empty() && reads_link_model(op, choice.algorithm)) {
    model_state = comm_state(comm);
    if (model_state != nullptr && model_state->model_unusable) {
      const int rc = native();
      record_call(op, comm, "native", info.bytes, since(t0),
                  "the link model failed on this communicator before");
      return rc;
    }
    opt.model_file = config().model_file.c_str();
  }
  int rc = PAPCOLL_SUCCESS;
  {
    const observe::OnBehalfOfMpi on_behalf;  // refusals go to MPI's checks, not the board
    rc = run_papcoll(&opt);
  }
  if (rc == PAPCOLL_SUCCESS) {
    const std::string ran = papcoll_last_algorithm();
    if (bcast_state != nullptr && ran == "native") {
      const long long b = static_cast<long long>(info.bytes);
      if (bcast_state->native_bcast_bytes.size() < kNativeBcastSizes)
        bcast_state->native_bcast_bytes.push_back(b);
      bcast_state->last_native_bcast = b;
    }
    record_call(op, comm, ran.empty() ? "none" : ran, info.bytes, since(t0));
    return MPI_SUCCESS;
  }
  const std::string why = papcoll_last_error();
  if (refused_before_communicating(rc) && !papcoll::last_error_is_local()) {
    if (rc == PAPCOLL_ERR_MODEL) {
      if (model_state != nullptr) model_state->model_unusable = true;
      warn_model_once(why.c_str());
    }
    const int native_rc = native();
    record_call(op, comm, "native", info.bytes, since(t0), why);
    return native_rc;
  }
  std::fprintf(stderr, "papcoll-intercept: %s failed: %s\n", mpi_function_name(op), why.c_str());
  const int mpi_rc = mpi_error_class(rc);
  if (comm != MPI_COMM_NULL) PMPI_Comm_call_errhandler(comm, mpi_rc);
  return mpi_rc;
}

}  // namespace
}  // namespace papcoll::intercept

using papcoll::intercept::bytes_of;
using papcoll::intercept::cached_call_bytes;
using papcoll::intercept::CallInfo;
using papcoll::intercept::dispatch;
using papcoll::intercept::g_observing;
using papcoll::intercept::g_quick_below;
using papcoll::intercept::kTypeNotCached;
using papcoll::intercept::Operation;

namespace papcoll::intercept {
namespace {

// A call the quick test sends to the MPI library (intercept_quick.hpp): observed like dispatch's
// calls to it when the report or the watchdog is on (with the bytes every rank passes, which
// are the report's key for these three operations), except papcoll's own calls (t_depth).
template <typename Run>
int quick_call(Operation op, MPI_Comm comm, long long bytes, int root, Run run) {
  if (t_depth > 0) return run();
  const Inside inside;
  return observed_native(op, comm, bytes, root, run);
}

// The quick calls when the report or the watchdog is on (g_observing), out of line: every path
// of a wrapper then ends in a tail call and its quick path saves no register (the observed path
// inlined into the wrapper made every call push and pop six; about 3 % of an 8-byte MPI_Bcast at
// 2 ranks). The arguments are the wrapper's own, so the jump needs no stack of its own; the
// bytes are the count times the size the per-thread cache holds (the wrapper or *_entry below
// found the type there, or put it there, just before on this thread).
[[gnu::noinline]] int observed_allreduce(const void* sendbuf, void* recvbuf, int count,
                                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return quick_call(Operation::allreduce, comm, count * t_type_size.size, -1,
                    [&] { return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm); });
}
[[gnu::noinline]] int observed_reduce(const void* sendbuf, void* recvbuf, int count,
                                      MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm) {
  return quick_call(Operation::reduce, comm, count * t_type_size.size, root,
                    [&] { return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm); });
}
[[gnu::noinline]] int observed_bcast(void* buffer, int count, MPI_Datatype datatype, int root,
                                     MPI_Comm comm) {
  return quick_call(Operation::bcast, comm, count * t_type_size.size, root,
                    [&] { return PMPI_Bcast(buffer, count, datatype, root, comm); });
}

int allreduce_call(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm);
int reduce_call(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm);
int bcast_call(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);

// The wrappers' quick tests for a type the per-thread cache does not hold (its first call on
// this thread, or after MPI_Type_free): the same decision, with the size found (and cached).
[[gnu::noinline]] int allreduce_entry(const void* sendbuf, void* recvbuf, int count,
                                      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  if (quick_native(Operation::allreduce, count, datatype) < 0)
    return allreduce_call(sendbuf, recvbuf, count, datatype, op, comm);
  if (!g_observing) return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
  return observed_allreduce(sendbuf, recvbuf, count, datatype, op, comm);
}
[[gnu::noinline]] int reduce_entry(const void* sendbuf, void* recvbuf, int count,
                                   MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm) {
  if (quick_native(Operation::reduce, count, datatype) < 0)
    return reduce_call(sendbuf, recvbuf, count, datatype, op, root, comm);
  if (!g_observing) return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
  return observed_reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
}
[[gnu::noinline]] int bcast_entry(void* buffer, int count, MPI_Datatype datatype, int root,
                                  MPI_Comm comm) {
  if (quick_native(Operation::bcast, count, datatype) < 0 &&
      quick_known_bcast(count, datatype, comm) < 0)
    return bcast_call(buffer, count, datatype, root, comm);
  if (!g_observing) return PMPI_Bcast(buffer, count, datatype, root, comm);
  return observed_bcast(buffer, count, datatype, root, comm);
}

// The wrappers' paths past the quick tests (intercept_quick.hpp), out of line: the wrappers stay
// a few instructions and a tail call for the calls that go straight to the MPI library.
[[gnu::noinline]] int allreduce_call(const void* sendbuf, void* recvbuf, int count,
                                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  const double bytes = bytes_of(count, datatype);
  return dispatch(
      CallInfo{Operation::allreduce, comm, bytes, -1, bytes},
      [&](const papcoll_options* o) {
        return papcoll_allreduce(sendbuf, recvbuf, count, datatype, op, comm, o);
      },
      [&] { return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm); });
}

[[gnu::noinline]] int reduce_call(const void* sendbuf, void* recvbuf, int count,
                                  MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm) {
  const double bytes = bytes_of(count, datatype);
  return dispatch(
      CallInfo{Operation::reduce, comm, bytes, root, bytes},
      [&](const papcoll_options* o) {
        return papcoll_reduce(sendbuf, recvbuf, count, datatype, op, root, comm, o);
      },
      [&] { return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm); });
}

[[gnu::noinline]] int bcast_call(void* buffer, int count, MPI_Datatype datatype, int root,
                                 MPI_Comm comm) {
  return dispatch(
      CallInfo{Operation::bcast, comm, bytes_of(count, datatype), root},
      [&](const papcoll_options* o) {
        return papcoll_bcast(buffer, count, datatype, root, comm, o);
      },
      [&] { return PMPI_Bcast(buffer, count, datatype, root, comm); });
}

}  // namespace
}  // namespace papcoll::intercept

extern "C" {

// The three wrappers with quick paths: the first test reads the type's size from the per-thread
// cache and decides with what is constant after load; every path ends in a tail call, so the
// wrapper saves no register (a call to type_size_slow in the wrapper made every call push and
// pop six: about 3 % of an 8-byte MPI_Bcast at 2 ranks). A type not in the cache goes to
// *_entry (out of line), which finds its size and decides the same way.
int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm) {
  const long long b = cached_call_bytes(count, datatype);
  if (b >= 0 && b < g_quick_below[static_cast<int>(Operation::allreduce)]) {
    if (!g_observing) return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
    return papcoll::intercept::observed_allreduce(sendbuf, recvbuf, count, datatype, op, comm);
  }
  if (b == kTypeNotCached)
    return papcoll::intercept::allreduce_entry(sendbuf, recvbuf, count, datatype, op, comm);
  return papcoll::intercept::allreduce_call(sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm) {
  const long long b = cached_call_bytes(count, datatype);
  if (b >= 0 && b < g_quick_below[static_cast<int>(Operation::reduce)]) {
    if (!g_observing) return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
    return papcoll::intercept::observed_reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
  }
  if (b == kTypeNotCached)
    return papcoll::intercept::reduce_entry(sendbuf, recvbuf, count, datatype, op, root, comm);
  return papcoll::intercept::reduce_call(sendbuf, recvbuf, count, datatype, op, root, comm);
}

int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  const long long b = cached_call_bytes(count, datatype);
  if (b >= 0 && (b < g_quick_below[static_cast<int>(Operation::bcast)] ||
                 papcoll::intercept::quick_known_bcast_bytes(b, comm))) {
    if (!g_observing) return PMPI_Bcast(buffer, count, datatype, root, comm);
    return papcoll::intercept::observed_bcast(buffer, count, datatype, root, comm);
  }
  if (b == kTypeNotCached)
    return papcoll::intercept::bcast_entry(buffer, count, datatype, root, comm);
  return papcoll::intercept::bcast_call(buffer, count, datatype, root, comm);
}

int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm) {
  return dispatch(
      CallInfo{Operation::allgatherv, comm,
               sendbuf == MPI_IN_PLACE ? 0.0 : bytes_of(sendcount, sendtype)},
      [&](const papcoll_options* o) {
        return papcoll_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                  recvtype, comm, o);
      },
      [&] {
        return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                               comm);
      });
}

// sendbuf, sendcounts, displs and sendtype are significant at the root only, recvbuf may be
// MPI_IN_PLACE there: papcoll reads them by the same rules (the root's verdict travels to every
// rank, docs/intercept.md).
int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm) {
  return dispatch(
      CallInfo{Operation::scatterv, comm,
               recvbuf == MPI_IN_PLACE ? 0.0 : bytes_of(recvcount, recvtype), root},
      [&](const papcoll_options* o) {
        return papcoll_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                                root, comm, o);
      },
      [&] {
        return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                             root, comm);
      });
}

// The reverse: recvbuf, recvcounts, displs and recvtype at the root only, sendbuf may be
// MPI_IN_PLACE there.
int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm) {
  return dispatch(
      CallInfo{Operation::gatherv, comm,
               sendbuf == MPI_IN_PLACE ? 0.0 : bytes_of(sendcount, sendtype), root},
      [&](const papcoll_options* o) {
        return papcoll_gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                               root, comm, o);
      },
      [&] {
        return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                            root, comm);
      });
}

int MPI_Finalize(void) {
  if (papcoll::intercept::config().verbose) papcoll::intercept::print_summary();
  // Every process passes here: the report (PAPCOLL_REPORT) is gathered over MPI_COMM_WORLD.
  papcoll::observe::finalize(true);
  return PMPI_Finalize();
}

}  // extern "C"
