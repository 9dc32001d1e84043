#include "executor/comm_context.hpp"

#include "error/hot_path.hpp"
#include "executor/core_sharing.hpp"
#include "executor/node_detection.hpp"
#include "executor/shared_transport.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

namespace papcoll {

SharedWindow* CommContext::shared_window(int64_t blocks, int64_t data_bytes) {
  if (!shared_memory || !fits_shared_window(size, blocks, data_bytes)) return nullptr;
  if (!window.reserve(comm, blocks, data_bytes).ok()) {
    shared_memory = false;  // the ranks agreed on the failure; messages from now on
    return nullptr;
  }
  return &window;
}

namespace {

// Raised whenever a context is deleted: every thread's last context is then looked up again.
std::atomic<std::uint64_t> g_context_generation{0};

struct LastContext {
  MPI_Comm comm{};  // the generation decides: MPI_COMM_NULL is no constant in every MPI
  std::uint64_t generation = ~0ULL;
  CommContext* ctx = nullptr;
};
// constinit: a plain TLS access, without an initialisation wrapper.
constinit thread_local LastContext t_last_context;

void remember_context(MPI_Comm comm, std::uint64_t generation, CommContext* ctx) {
  t_last_context = LastContext{comm, generation, ctx};
}

std::mutex g_open_mutex;
// Contexts whose duplicate has not been freed yet, in the order they were created: freeing a
// window is collective, so every rank frees them in the same order.
std::vector<CommContext*> g_open;

void free_duplicate(CommContext* ctx) {
  ctx->window.release();
  if (ctx->comm != MPI_COMM_NULL) MPI_Comm_free(&ctx->comm);
}

int delete_context(MPI_Comm, int, void* attr, void*) {
  g_context_generation.fetch_add(1, std::memory_order_acq_rel);
  auto* ctx = static_cast<CommContext*>(attr);
  {
    std::lock_guard<std::mutex> lock(g_open_mutex);
    g_open.erase(std::remove(g_open.begin(), g_open.end(), ctx), g_open.end());
  }
  free_duplicate(ctx);
  delete ctx;
  return MPI_SUCCESS;
}

// MPI_Finalize deletes MPI_COMM_SELF's attributes first, while MPI is still fully usable; those of
// MPI_COMM_WORLD are deleted later (when freeing a communicator may no longer be allowed) or
// never. So the duplicates are freed here, and delete_context then only releases memory.
int finalize_hook(MPI_Comm, int, void*, void*) {
  g_context_generation.fetch_add(1, std::memory_order_acq_rel);
  std::lock_guard<std::mutex> lock(g_open_mutex);
  for (CommContext* ctx : g_open) free_duplicate(ctx);
  g_open.clear();
  return MPI_SUCCESS;
}

struct Keyvals {
  int context = MPI_KEYVAL_INVALID;
  MpiStatus status;
};

const Keyvals& keyvals() {
  static const Keyvals k = [] {
    Keyvals r;
    int hook = MPI_KEYVAL_INVALID;
    r.status = mpi_check(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_context, &r.context,
                                                nullptr),
                         "MPI_Comm_create_keyval");
    if (r.status.ok())
      r.status =
          mpi_check(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_hook, &hook, nullptr),
                    "MPI_Comm_create_keyval");
    if (r.status.ok())
      r.status = mpi_check(MPI_Comm_set_attr(MPI_COMM_SELF, hook, nullptr), "MPI_Comm_set_attr");
    return r;
  }();
  return k;
}

}  // namespace

PAPCOLL_HOT CommContext* last_comm_context(MPI_Comm user_comm) {
  const LastContext& last = t_last_context;
  if (last.comm == user_comm &&
      last.generation == g_context_generation.load(std::memory_order_acquire)) [[likely]]
    return last.ctx;
  return nullptr;
}

PAPCOLL_HOT MpiStatus comm_context(MPI_Comm user_comm, CommContext** out) {
  if (CommContext* ctx = last_comm_context(user_comm)) [[likely]] {
    *out = ctx;
    return {};
  }
  // Read before the lookup: a context deleted meanwhile leaves the remembered one stale at once.
  const std::uint64_t generation = g_context_generation.load(std::memory_order_acquire);
  const Keyvals& kv = keyvals();
  if (!kv.status.ok()) return kv.status;
  void* value = nullptr;
  int found = 0;
  PAPCOLL_MPI_TRY(MPI_Comm_get_attr(user_comm, kv.context, &value, &found), "MPI_Comm_get_attr");
  if (found) {
    *out = static_cast<CommContext*>(value);
    remember_context(user_comm, generation, *out);
    return {};
  }
  auto ctx = std::make_unique<CommContext>();
  PAPCOLL_MPI_TRY(MPI_Comm_dup(user_comm, &ctx->comm), "MPI_Comm_dup");
  MpiStatus s =
      mpi_check(MPI_Comm_set_errhandler(ctx->comm, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  if (s.ok()) s = mpi_check(MPI_Comm_rank(ctx->comm, &ctx->rank), "MPI_Comm_rank");
  if (s.ok()) s = mpi_check(MPI_Comm_size(ctx->comm, &ctx->size), "MPI_Comm_size");
  NodeLayouts layouts;
  if (s.ok()) s = detect_node_layouts(ctx->comm, &layouts);
  if (s.ok()) {
    ctx->nodes = layouts.nodes;
    ctx->machine_nodes = layouts.machine;
    if (!ctx->nodes->single_node() && !ctx->nodes->one_rank_per_node())
      ctx->schedule_nodes = ctx->nodes;
    ctx->nodes_overridden = layouts.overridden;
    const NodeLayout& machine = *ctx->machine_nodes;
    const int on_node = machine.node_size(machine.node_of[static_cast<size_t>(ctx->rank)]);
    s = detect_cores_shared(ctx->comm, on_node, &ctx->cores_shared);
  }
  // The window needs memory that every rank shares, and under PAPCOLL_NODES a pretended node
  // boundary between them: then the ranks talk through messages, as across real nodes.
  if (s.ok())
    s = SharedWindow::usable(ctx->comm,
                             ctx->machine_nodes->single_node() && ctx->nodes->single_node(),
                             &ctx->shared_memory);
  if (s.ok())
    s = mpi_check(MPI_Comm_set_attr(user_comm, kv.context, ctx.get()), "MPI_Comm_set_attr");
  if (!s.ok()) {
    free_duplicate(ctx.get());
    return s;
  }
  {
    std::lock_guard<std::mutex> lock(g_open_mutex);
    g_open.push_back(ctx.get());
  }
  *out = ctx.release();
  remember_context(user_comm, generation, *out);
  return {};
}

}  // namespace papcoll
