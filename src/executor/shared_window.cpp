#include "executor/shared_window.hpp"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>

namespace papcoll {
namespace {

int64_t round_up(int64_t x, int64_t to) { return (x + to - 1) / to * to; }

// Waiting ranks yield the CPU soon: ranks may outnumber cores (core_sharing.hpp), and the rank
// being waited for may need the core this one spins on.
template <class Ready>
void spin_until(Ready ready) {
  for (int spins = 0; !ready(); ++spins)
    if (spins >= 64) sched_yield();
}

uint64_t load_acquire(uint64_t* p) {
  return std::atomic_ref<uint64_t>(*p).load(std::memory_order_acquire);
}
void store_release(uint64_t* p, uint64_t v) {
  std::atomic_ref<uint64_t>(*p).store(v, std::memory_order_release);
}

}  // namespace

SharedWindow::~SharedWindow() = default;

MpiStatus SharedWindow::usable(MPI_Comm comm, bool one_node, bool* out) {
  *out = false;
#ifdef PAPCOLL_SMPI
  (void)comm;
  (void)one_node;
  return {};
#else
  static_assert(std::atomic_ref<uint64_t>::is_always_lock_free,
                "flags in shared memory need lock-free (address-free) atomics");
  const char* env = std::getenv("PAPCOLL_SHARED_MEMORY");
  int local = one_node && !(env != nullptr && std::strcmp(env, "0") == 0) ? 1 : 0;
  int all = 0;
  PAPCOLL_MPI_TRY(MPI_Allreduce(&local, &all, 1, MPI_INT, MPI_LAND, comm), "MPI_Allreduce");
  *out = all != 0;
  return {};
#endif
}

MpiStatus SharedWindow::reserve(MPI_Comm comm, int64_t blocks, int64_t data_bytes) {
  if (win_ != MPI_WIN_NULL && blocks <= blocks_ && data_bytes <= data_bytes_) return {};
  if (win_ != MPI_WIN_NULL) {
    wait_all_done(epoch_);  // nobody reads the old segments any more
    release();
  }
  // Grow with headroom so a caller sweeping sizes does not reallocate on every call.
  // Never more than twice the blocks and half again the bytes asked for (fits_shared_window's
  // bound includes that headroom).
  blocks_ = std::max<int64_t>({blocks, std::min(2 * blocks_, 2 * blocks), 64});
  data_bytes_ = round_up(
      std::max<int64_t>({data_bytes, std::min(data_bytes_, data_bytes) * 3 / 2, 4096}), 4096);
  header_bytes_ = kLine + round_up(blocks_ * static_cast<int64_t>(sizeof(uint64_t)), kLine);
  PAPCOLL_MPI_TRY(MPI_Comm_rank(comm, &rank_), "MPI_Comm_rank");
  PAPCOLL_MPI_TRY(MPI_Comm_size(comm, &size_), "MPI_Comm_size");

  MPI_Info info = MPI_INFO_NULL;
  PAPCOLL_MPI_TRY(MPI_Info_create(&info), "MPI_Info_create");
  // Each segment on its own pages: a rank's writes never share a page with its neighbour's.
  MPI_Info_set(info, "alloc_shared_noncontig", "true");
  char* base = nullptr;
  const int rc = MPI_Win_allocate_shared(static_cast<MPI_Aint>(header_bytes_ + data_bytes_), 1,
                                         info, comm, &base, &win_);
  MPI_Info_free(&info);
  // Out of shared memory (a small /dev/shm) may fail on some ranks only: agree, so that every
  // rank falls back to messages together. A window that exists on some ranks only is left alone
  // (freeing it is collective).
  int ok = rc == MPI_SUCCESS ? 1 : 0, all_ok = 0;
  PAPCOLL_MPI_TRY(MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, comm), "MPI_Allreduce");
  if (!all_ok) {
    win_ = MPI_WIN_NULL;
    blocks_ = data_bytes_ = 0;
    return mpi_check(rc == MPI_SUCCESS ? MPI_ERR_NO_MEM : rc, "MPI_Win_allocate_shared");
  }
  segments_.assign(static_cast<size_t>(size_), nullptr);
  for (int r = 0; r < size_; ++r) {
    MPI_Aint bytes = 0;
    int disp = 0;
    char* seg = nullptr;
    PAPCOLL_MPI_TRY(MPI_Win_shared_query(win_, r, &bytes, &disp, &seg), "MPI_Win_shared_query");
    segments_[static_cast<size_t>(r)] = seg;
  }
  // Nothing published yet; the reads of the calls so far are all done.
  std::memset(segments_[static_cast<size_t>(rank_)], 0, static_cast<size_t>(header_bytes_));
  store_release(done(rank_), epoch_);
  PAPCOLL_MPI_TRY(MPI_Win_lock_all(MPI_MODE_NOCHECK, win_), "MPI_Win_lock_all");
  // No rank reads another's header before it is initialised.
  PAPCOLL_MPI_TRY(MPI_Barrier(comm), "MPI_Barrier");
  return {};
}

void SharedWindow::begin_call() {
  wait_all_done(epoch_);
  ++epoch_;
}

void SharedWindow::end_call() { store_release(done(rank_), epoch_); }

void SharedWindow::publish(int block) { store_release(flags(rank_) + block, epoch_); }

void SharedWindow::wait_published(int rank, int block) const {
  uint64_t* f = flags(rank) + block;
  spin_until([&] { return load_acquire(f) == epoch_; });
}

void SharedWindow::wait_all_done(uint64_t epoch) const {
  for (int r = 0; r < size_; ++r) {
    if (r == rank_) continue;
    uint64_t* d = done(r);
    spin_until([&] { return load_acquire(d) >= epoch; });
  }
}

void SharedWindow::release() {
  if (win_ == MPI_WIN_NULL) return;
  wait_all_done(epoch_);  // a slower rank may still be reading this rank's segment
  MPI_Win_unlock_all(win_);
  MPI_Win_free(&win_);
  win_ = MPI_WIN_NULL;
  segments_.clear();
}

}  // namespace papcoll
