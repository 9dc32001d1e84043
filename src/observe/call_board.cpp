#include "observe/call_board.hpp"

#include <chrono>
#include <cstring>
#include <thread>

namespace papcoll::observe {

MpiStatus Board::open(MPI_Comm comm, bool shared) {
  PAPCOLL_MPI_TRY(PMPI_Comm_rank(comm, &rank_), "MPI_Comm_rank");
  PAPCOLL_MPI_TRY(PMPI_Comm_size(comm, &size_), "MPI_Comm_size");
  const MPI_Aint bytes = sizeof(BoardSlot);
  void* base = nullptr;
  shared_ = shared;
  if (shared) {
    PAPCOLL_MPI_TRY(
        PMPI_Win_allocate_shared(bytes, 1, MPI_INFO_NULL, comm, &base, &win_),
        "MPI_Win_allocate_shared");
    slots_.assign(static_cast<size_t>(size_), nullptr);
    for (int r = 0; r < size_; ++r) {
      MPI_Aint size = 0;
      int unit = 0;
      void* p = nullptr;
      PAPCOLL_MPI_TRY(PMPI_Win_shared_query(win_, r, &size, &unit, &p), "MPI_Win_shared_query");
      slots_[static_cast<size_t>(r)] = static_cast<BoardSlot*>(p);
    }
  } else {
    PAPCOLL_MPI_TRY(PMPI_Win_allocate(bytes, 1, MPI_INFO_NULL, comm, &base, &win_),
                    "MPI_Win_allocate");
    PAPCOLL_MPI_TRY(PMPI_Win_lock_all(MPI_MODE_NOCHECK, win_), "MPI_Win_lock_all");
  }
  PMPI_Win_set_errhandler(win_, MPI_ERRORS_RETURN);
  own_ = static_cast<BoardSlot*>(base);
  // Atomic stores need aligned words; every rank checks its own slot, and the ranks agree.
  int aligned = reinterpret_cast<std::uintptr_t>(own_) % alignof(std::uint64_t) == 0 ? 1 : 0;
  if (aligned) {
    std::memset(static_cast<void*>(own_), 0, sizeof(BoardSlot));
    int world = 0, len = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &world);
    own_->world_rank = world;
    char host[MPI_MAX_PROCESSOR_NAME] = {0};
    if (PMPI_Get_processor_name(host, &len) == MPI_SUCCESS)
      std::strncat(own_->host, host, sizeof own_->host - 1);
    for (JoinDescriptor& d : own_->desc) d.seq = d.last = kWriting;
  }
  // Every slot is initialised before anyone may read it.
  int all = 0;
  PAPCOLL_MPI_TRY(PMPI_Allreduce(&aligned, &all, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  if (!all) {
    close();
    return {MPI_ERR_OTHER, "MPI_Win_allocate (a board slot is not 8-byte aligned)"};
  }
  return {};
}

void Board::close() {
  if (win_ == MPI_WIN_NULL) return;
  if (!shared_) {
    for (Pending& p : pending_) PMPI_Wait(&p.request, MPI_STATUS_IGNORE);
    PMPI_Win_unlock_all(win_);
  }
  for (Pending& p : pending_) delete p.buffer;
  pending_.clear();
  PMPI_Win_free(&win_);
  win_ = MPI_WIN_NULL;
  own_ = nullptr;
  slots_.clear();
}

void Board::refuse(std::uint64_t seq, int code, const char* message) {
  own_->refusal_code = code;
  own_->refusal[0] = '\0';
  std::strncat(own_->refusal, message, sizeof own_->refusal - 1);
  std::atomic_ref<std::uint64_t>(own_->refusal_seq).store(seq, std::memory_order_release);
  // In the descriptor ring too: a rank that refused and moved on still shows it.
  JoinDescriptor d{};
  d.refused = 1;
  d.type = d.op = d.root = d.algorithm = -1;
  ready(seq, d);
  store_word(pack_word(seq, CallState::refused));
}

bool Board::copy_once(int rank, BoardSlot* out) const {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (shared_ || rank == rank_) {
    const BoardSlot* src = shared_ ? slots_[static_cast<size_t>(rank)] : own_;
    std::memcpy(static_cast<void*>(out), src, sizeof(BoardSlot));
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return true;
  }
  if (PMPI_Get(out, sizeof(BoardSlot), MPI_BYTE, rank, 0, sizeof(BoardSlot), MPI_BYTE, win_) !=
      MPI_SUCCESS)
    return false;
  return PMPI_Win_flush(rank, win_) == MPI_SUCCESS;
}

bool Board::read(int rank, BoardSlot* out) const {
  if (win_ == MPI_WIN_NULL || rank < 0 || rank >= size_) return false;
  BoardSlot second;
  for (int attempt = 0; attempt < 64; ++attempt) {
    if (!copy_once(rank, out) || !copy_once(rank, &second)) return false;
    if (std::memcmp(out, &second, sizeof(BoardSlot)) == 0) return true;
  }
  // A rank that moves on quickly: its word is current, the rest may mix two calls (a descriptor
  // still carries its own call number, checked by descriptor()).
  return true;
}

bool Board::read_within(int rank, BoardSlot* out, double seconds) {
  if (shared_ || rank == rank_) return read(rank, out);
  if (win_ == MPI_WIN_NULL || rank < 0 || rank >= size_) return false;
  // Earlier gets that were not answered: finished ones free their buffers.
  for (size_t i = 0; i < pending_.size();) {
    int done = 0;
    PMPI_Test(&pending_[i].request, &done, MPI_STATUS_IGNORE);
    if (done) {
      delete pending_[i].buffer;
      pending_[i] = pending_.back();
      pending_.pop_back();
    } else {
      ++i;
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  auto* buffer = new BoardSlot;
  MPI_Request req = MPI_REQUEST_NULL;
  if (PMPI_Rget(buffer, sizeof(BoardSlot), MPI_BYTE, rank, 0, sizeof(BoardSlot), MPI_BYTE, win_,
                &req) != MPI_SUCCESS) {
    delete buffer;
    return false;
  }
  for (;;) {
    int done = 0;
    if (PMPI_Test(&req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
      pending_.push_back({req, buffer});
      return false;
    }
    if (done) break;
    if (std::chrono::steady_clock::now() > deadline) {
      pending_.push_back({req, buffer});
      return false;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  *out = *buffer;
  delete buffer;
  return true;
}

bool Board::descriptor(const BoardSlot& s, std::uint64_t seq, JoinDescriptor* out) {
  for (const JoinDescriptor& d : s.desc)
    if (d.seq != kWriting && d.last != kWriting && d.seq <= seq && seq <= d.last) {
      *out = d;
      return true;
    }
  return false;
}

}  // namespace papcoll::observe
