#include "observe/call_board.hpp"
#include "error/hot_path.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

namespace papcoll::observe {

PAPCOLL_HOT std::uint64_t bytes_hash(const void* data, size_t bytes) {
  if (bytes == 0) return 0;
  std::uint64_t h = 1469598103934665603ULL;  // FNV-1a
  const auto* b = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < bytes; ++i) {
    h ^= b[i];
    h *= 1099511628211ULL;
  }
  return h == 0 ? 1 : h;
}

MpiStatus Board::open(MPI_Comm comm, bool shared) {
  PAPCOLL_MPI_TRY(PMPI_Comm_rank(comm, &rank_), "MPI_Comm_rank");
  PAPCOLL_MPI_TRY(PMPI_Comm_size(comm, &size_), "MPI_Comm_size");
  segment_ =
      static_cast<MPI_Aint>(sizeof(BoardSlot) + sizeof(BoardExtension) +
                            (sizeof(double) + sizeof(long long)) * static_cast<size_t>(size_));
  void* base = nullptr;
  shared_ = shared;
  if (shared) {
    PAPCOLL_MPI_TRY(PMPI_Win_allocate_shared(segment_, 1, MPI_INFO_NULL, comm, &base, &win_),
                    "MPI_Win_allocate_shared");
    slots_.assign(static_cast<size_t>(size_), nullptr);
    for (int r = 0; r < size_; ++r) {
      MPI_Aint size = 0;
      int unit = 0;
      void* p = nullptr;
      PAPCOLL_MPI_TRY(PMPI_Win_shared_query(win_, r, &size, &unit, &p), "MPI_Win_shared_query");
      slots_[static_cast<size_t>(r)] = static_cast<char*>(p);
    }
  } else {
    PAPCOLL_MPI_TRY(PMPI_Win_allocate(segment_, 1, MPI_INFO_NULL, comm, &base, &win_),
                    "MPI_Win_allocate");
    PAPCOLL_MPI_TRY(PMPI_Win_lock_all(MPI_MODE_NOCHECK, win_), "MPI_Win_lock_all");
  }
  PMPI_Win_set_errhandler(win_, MPI_ERRORS_RETURN);
  own_ = static_cast<BoardSlot*>(base);
  // Atomic stores need aligned words; every rank checks its own slot, and the ranks agree.
  int aligned = reinterpret_cast<std::uintptr_t>(own_) % alignof(std::uint64_t) == 0 ? 1 : 0;
  if (aligned) {
    std::memset(static_cast<void*>(own_), 0, static_cast<size_t>(segment_));
    int world = 0, len = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &world);
    own_->world_rank = world;
    char host[MPI_MAX_PROCESSOR_NAME] = {0};
    // A longer host name is cut (the slot is zeroed, so the kept part stays terminated).
    if (PMPI_Get_processor_name(host, &len) == MPI_SUCCESS)
      std::memcpy(own_->host, host, std::min(std::strlen(host), sizeof own_->host - 1));
    for (BoardCall& c : own_->calls) c.seq = c.last = kWriting;
    own_extension()->seq = own_extension()->last = kWriting;
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

void Board::write_extension(std::uint64_t seq, const double* arrivals, const long long* portions) {
  BoardExtension* ext = own_extension();
  std::atomic_ref<std::uint64_t>(ext->seq).store(kWriting, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  char* arrays = reinterpret_cast<char*>(ext) + sizeof(BoardExtension);
  const size_t n = static_cast<size_t>(size_);
  ext->arrivals = arrivals != nullptr ? size_ : 0;
  ext->portions = portions != nullptr ? size_ : 0;
  if (arrivals != nullptr) std::memcpy(arrays, arrivals, n * sizeof(double));
  if (portions != nullptr)
    std::memcpy(arrays + n * sizeof(double), portions, n * sizeof(long long));
  ext->last = seq;
  std::atomic_ref<std::uint64_t>(ext->seq).store(seq, std::memory_order_release);
}

PAPCOLL_HOT void Board::publish(std::uint64_t seq, const BoardCall& c, const double* arrivals,
                                const long long* portions) {
  current_source_ = nullptr;
  BoardCall& cur = own_->calls[current_];
  const bool with_arrays = arrivals != nullptr || portions != nullptr;
  if (cur.last + 1 == seq && cur.seq != kWriting &&
      std::memcmp(fields(&cur), fields(&c), kFieldBytes) == 0 &&
      (!with_arrays || extension_current_)) {
    // The extension's run first: a reader that finds the call extended finds its arrays too.
    if (with_arrays)
      std::atomic_ref<std::uint64_t>(own_extension()->last).store(seq, std::memory_order_release);
    std::atomic_ref<std::uint64_t>(cur.last).store(seq, std::memory_order_release);
  } else {
    if (with_arrays) write_extension(seq, arrivals, portions);
    extension_current_ = with_arrays;
    current_ = (current_ + 1) % kCallRing;
    BoardCall& slot = own_->calls[current_];
    std::atomic_ref<std::uint64_t>(slot.seq).store(kWriting, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
    std::memcpy(fields(&slot), fields(&c), kFieldBytes);
    slot.last = seq;
    std::atomic_ref<std::uint64_t>(slot.seq).store(seq, std::memory_order_release);
  }
  store_word(pack_word(seq, CallState::ready));
}

void Board::note_problem(std::uint64_t seq, int code, const char* message) {
  BoardProblem& p = own_->problems[seq % kProblemRing];
  std::atomic_ref<std::uint64_t>(p.seq).store(kWriting, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  p.code = code;
  p.message[0] = '\0';
  std::strncat(p.message, message, sizeof p.message - 1);
  std::atomic_ref<std::uint64_t>(p.seq).store(seq, std::memory_order_release);
}

void Board::refuse(std::uint64_t seq, int collective, int code, const char* message) {
  note_problem(seq, code, message);
  // In the ring of calls too: a rank that refused and moved on still shows it.
  BoardCall c{};
  c.collective = collective;
  c.flags = kCallRefused;
  c.type = c.unit_type = c.op = c.root = -1;
  c.algorithm = kAlgorithmNative;
  publish(seq, c, nullptr, nullptr);
  store_word(pack_word(seq, CallState::refused));
}

bool Board::notify(int rank, std::uint64_t seq) {
  if (win_ == MPI_WIN_NULL || rank < 0 || rank >= size_ || rank == rank_) return false;
  if (shared_) {
    auto* slot = reinterpret_cast<BoardSlot*>(slots_[static_cast<size_t>(rank)]);
    std::atomic_ref<std::uint64_t> word(slot->peer_failed);
    std::uint64_t seen = word.load(std::memory_order_relaxed);
    while (seen < seq && !word.compare_exchange_weak(seen, seq, std::memory_order_release,
                                                     std::memory_order_relaxed)) {
    }
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return true;
  }
  std::uint64_t value = seq;
  if (PMPI_Accumulate(&value, 1, MPI_UINT64_T, rank,
                      static_cast<MPI_Aint>(offsetof(BoardSlot, peer_failed)), 1, MPI_UINT64_T,
                      MPI_MAX, win_) != MPI_SUCCESS)
    return false;
  return PMPI_Win_flush(rank, win_) == MPI_SUCCESS;
}

bool Board::copy_once(int rank, void* out, size_t bytes, MPI_Aint offset) const {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (shared_ || rank == rank_) {
    const char* src = shared_ ? slots_[static_cast<size_t>(rank)]
                              : reinterpret_cast<const char*>(own_);
    std::memcpy(out, src + offset, bytes);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return true;
  }
  if (PMPI_Get(out, static_cast<int>(bytes), MPI_BYTE, rank, offset, static_cast<int>(bytes),
               MPI_BYTE, win_) != MPI_SUCCESS)
    return false;
  return PMPI_Win_flush(rank, win_) == MPI_SUCCESS;
}

bool Board::read_bytes(int rank, void* out, size_t bytes, MPI_Aint offset) const {
  std::vector<char> second(bytes);
  for (int attempt = 0; attempt < 64; ++attempt) {
    if (!copy_once(rank, out, bytes, offset) || !copy_once(rank, second.data(), bytes, offset))
      return false;
    if (std::memcmp(out, second.data(), bytes) == 0) return true;
  }
  // A rank that moves on quickly: its word is current, the rest may mix two calls (a call
  // still carries its own call number, checked by call() and read_extension()).
  return true;
}

bool Board::read(int rank, BoardSlot* out) const {
  if (win_ == MPI_WIN_NULL || rank < 0 || rank >= size_) return false;
  return read_bytes(rank, out, sizeof(BoardSlot), 0);
}

bool Board::read_extension(int rank, std::uint64_t seq, CallArrays* out) const {
  if (win_ == MPI_WIN_NULL || rank < 0 || rank >= size_) return false;
  const size_t n = static_cast<size_t>(size_);
  std::vector<char> buf(static_cast<size_t>(segment_) - sizeof(BoardSlot));
  if (!read_bytes(rank, buf.data(), buf.size(), static_cast<MPI_Aint>(sizeof(BoardSlot))))
    return false;
  BoardExtension ext;
  std::memcpy(&ext, buf.data(), sizeof ext);
  if (ext.seq == kWriting || ext.last == kWriting || seq < ext.seq || seq > ext.last) return false;
  const char* arrays = buf.data() + sizeof(BoardExtension);
  out->arrivals.clear();
  out->portions.clear();
  if (ext.arrivals == size_) {
    out->arrivals.resize(n);
    std::memcpy(out->arrivals.data(), arrays, n * sizeof(double));
  }
  if (ext.portions == size_) {
    out->portions.resize(n);
    std::memcpy(out->portions.data(), arrays + n * sizeof(double), n * sizeof(long long));
  }
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

bool Board::call(const BoardSlot& s, std::uint64_t seq, BoardCall* out) {
  for (const BoardCall& c : s.calls)
    if (c.seq != kWriting && c.last != kWriting && c.seq <= seq && seq <= c.last) {
      *out = c;
      return true;
    }
  return false;
}

const BoardProblem* Board::problem(const BoardSlot& s, std::uint64_t seq) {
  const BoardProblem& p = s.problems[seq % kProblemRing];
  return p.seq == seq ? &p : nullptr;
}

}  // namespace papcoll::observe
