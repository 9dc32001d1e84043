#include "observe/comm_observer.hpp"

#include <algorithm>
#include <cstdio>
#include <mutex>

#include "executor/mpi_status.hpp"
#include "executor/node_detection.hpp"
#include "observe/observe_config.hpp"
#include "observe/report_writer.hpp"
#include "observe/watchdog.hpp"

namespace papcoll::observe {

constinit thread_local ThreadCache t_cache;
std::atomic<std::uint64_t> g_generation{0};

ThreadCache& thread_cache() { return t_cache; }

namespace {

std::mutex g_observers_mutex;       // the registry below
std::vector<CommObserver*> g_live;  // in the order they were made
std::vector<CommData> g_retired;    // the report records of freed communicators
long long g_made = 0;               // observers this process made (part of the ids)
bool g_finalized = false;

CommData snapshot(CommObserver& o, bool freed) {
  CommData d;
  d.id = o.id;
  d.name = o.given_name;
  d.size = o.size;
  d.rank = o.rank;
  d.world_ranks = o.world_ranks;
  d.freed = freed;
  if (o.record) {
    d.calls = o.record->calls();
    d.unkeyed = o.record->unkeyed_calls();
    for (const KeyRecord& k : o.record->keys()) d.keys.push_back(key_data(k));
  }
  return d;
}

void close_observer(CommObserver* o) {
  if (o->closed) return;
  o->closed = true;
  o->slot = nullptr;
  o->board.close();
  if (o->comm != MPI_COMM_NULL) PMPI_Comm_free(&o->comm);
}

// The communicator is being freed (or MPI is finalising): its record joins the freed ones.
int delete_observer(MPI_Comm, int, void* attr, void*) {
  auto* o = static_cast<CommObserver*>(attr);
  g_generation.fetch_add(1, std::memory_order_acq_rel);
  bool finalized = false;
  {
    std::lock_guard<std::mutex> lock(g_observers_mutex);
    finalized = g_finalized;
    const auto it = std::find(g_live.begin(), g_live.end(), o);
    if (it != g_live.end()) {
      g_live.erase(it);
      if (o->record && !finalized) g_retired.push_back(snapshot(*o, true));
    }
  }
  if (!finalized) close_observer(o);
  delete o;
  return MPI_SUCCESS;
}

int finalize_hook(MPI_Comm, int, void*, void*) {
  finalize(false);
  return MPI_SUCCESS;
}

int keyval() {
  static const int key = [] {
    int k = MPI_KEYVAL_INVALID;
    if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_observer, &k, nullptr) != MPI_SUCCESS)
      return static_cast<int>(MPI_KEYVAL_INVALID);
    // MPI_Finalize deletes MPI_COMM_SELF's attributes first, while MPI is fully usable.
    int hook = MPI_KEYVAL_INVALID;
    if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_hook, &hook, nullptr) ==
        MPI_SUCCESS)
      PMPI_Comm_set_attr(MPI_COMM_SELF, hook, nullptr);
    return k;
  }();
  return key;
}

void warn_once(const char* what, const std::string& why) {
  static std::atomic<bool> warned{false};
  if (!warned.exchange(true))
    std::fprintf(stderr, "papcoll: %s on a communicator: %s\n", what, why.c_str());
}

}  // namespace

RegistryLock::RegistryLock() { g_observers_mutex.lock(); }
RegistryLock::~RegistryLock() { g_observers_mutex.unlock(); }
std::vector<CommObserver*>& live_observers() { return g_live; }

CommObserver* find_observer_slow(MPI_Comm comm, std::uint64_t generation) {
  CommObserver* found = nullptr;
  const int key = keyval();
  if (comm != MPI_COMM_NULL && key != MPI_KEYVAL_INVALID) {
    void* value = nullptr;
    int flag = 0;
    if (PMPI_Comm_get_attr(comm, key, &value, &flag) == MPI_SUCCESS && flag)
      found = static_cast<CommObserver*>(value);
  }
  t_cache.comm = comm;
  t_cache.generation = generation;
  t_cache.observer = found;
  return found;
}

CommObserver* make_observer(MPI_Comm comm) {
  if (CommObserver* o = find_observer(comm)) return o;
  const int key = keyval();
  if (key == MPI_KEYVAL_INVALID) return nullptr;
  auto o = std::make_unique<CommObserver>();
  auto mpi_failed = [&](const char* call) {
    warn_once("no call board or report record", std::string(call) + " failed");
    if (o->comm != MPI_COMM_NULL) PMPI_Comm_free(&o->comm);
    return nullptr;
  };
  if (PMPI_Comm_dup(comm, &o->comm) != MPI_SUCCESS) return mpi_failed("MPI_Comm_dup");
  PMPI_Comm_set_errhandler(o->comm, MPI_ERRORS_RETURN);
  PMPI_Comm_rank(o->comm, &o->rank);
  PMPI_Comm_size(o->comm, &o->size);
  {
    MPI_Group mine, world;
    PMPI_Comm_group(comm, &mine);
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    std::vector<int> ranks(static_cast<size_t>(o->size));
    for (int i = 0; i < o->size; ++i) ranks[static_cast<size_t>(i)] = i;
    o->world_ranks.assign(static_cast<size_t>(o->size), -1);
    PMPI_Group_translate_ranks(mine, o->size, ranks.data(), world, o->world_ranks.data());
    PMPI_Group_free(&mine);
    PMPI_Group_free(&world);
  }
  char name[MPI_MAX_OBJECT_NAME] = {0};
  int len = 0;
  if (PMPI_Comm_get_name(comm, name, &len) == MPI_SUCCESS) o->given_name.assign(name, len);
  // One exchange: whether every rank is on one node, and the id (comm rank 0's world rank and
  // count of observers made there).
  // The observer exists also where papcoll's communicator context does not (the interposition
  // library's native calls), so it asks MPI itself, the same way the context does.
  SharedNode node;
  if (!shared_node_of(o->comm, &node).ok()) return mpi_failed("MPI_Comm_split_type");
  const int on_node = node.size;
  int world_rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  long long mine[2] = {on_node == o->size ? 0 : 1,
                       o->rank == 0 ? (static_cast<long long>(world_rank) << 24) + g_made : -1};
  long long agreed[2] = {0, 0};
  if (PMPI_Allreduce(mine, agreed, 2, MPI_LONG_LONG, MPI_MAX, o->comm) != MPI_SUCCESS)
    return mpi_failed("MPI_Allreduce");
  ++g_made;
  o->id = agreed[1];
  o->label = o->given_name.empty() ? "communicator " + std::to_string(o->id) : o->given_name;
  const ObserveConfig& cfg = config();
  if (cfg.board && o->size > 1) {
    const bool shared = agreed[0] == 0 && cfg.board_shared;
    if (MpiStatus s = o->board.open(o->comm, shared); !s.ok())
      warn_once("no call board", describe(s));
    o->slot = o->board.own_slot();
  }
  if (cfg.report) o->report = &o->record.emplace(cfg.report_samples, &o->quick);
  if (PMPI_Comm_set_attr(comm, key, o.get()) != MPI_SUCCESS) {
    close_observer(o.get());
    return nullptr;
  }
  CommObserver* made = o.release();
  {
    std::lock_guard<std::mutex> lock(g_observers_mutex);
    g_live.push_back(made);
  }
  g_generation.fetch_add(1, std::memory_order_acq_rel);
  if (cfg.watchdog() && made->board.is_open()) start_watchdog();
  return made;
}

std::vector<CommData> report_snapshot() {
  std::lock_guard<std::mutex> lock(g_observers_mutex);
  std::vector<CommData> out = g_retired;
  for (CommObserver* o : g_live)
    if (o->record) out.push_back(snapshot(*o, false));
  return out;
}

void finalize(bool every_process) {
  {
    std::lock_guard<std::mutex> lock(g_observers_mutex);
    if (g_finalized) return;
  }
  const ObserveConfig& cfg = config();
  if (cfg.report && !cfg.report_path.empty()) {
    bool world_observed = every_process;
    int world = 0;
    PMPI_Comm_size(MPI_COMM_WORLD, &world);
    {
      std::lock_guard<std::mutex> lock(g_observers_mutex);
      for (const CommObserver* o : g_live) world_observed = world_observed || o->size == world;
    }
    if (world_observed)
      (void)write_report(cfg.report_path.c_str(), "MPI_Finalize");
    else
      std::fprintf(stderr,
                   "papcoll: PAPCOLL_REPORT: no papcoll collective ran on a communicator of "
                   "every process, so the report cannot be gathered at MPI_Finalize; call "
                   "papcoll_report_write on every process, or use libpapcoll-intercept\n");
  }
  stop_watchdog();
  std::vector<CommObserver*> live;
  {
    std::lock_guard<std::mutex> lock(g_observers_mutex);
    g_finalized = true;
    live = g_live;
  }
  // In the order they were made: every rank frees the boards of its communicators in an order
  // that agrees with every other rank's (they were made collectively in that order).
  for (CommObserver* o : live) close_observer(o);
  g_generation.fetch_add(1, std::memory_order_acq_rel);
}

}  // namespace papcoll::observe
