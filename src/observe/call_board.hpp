// The call board of a communicator: one slot per rank in an MPI-3 window, in which each rank
// writes, with plain stores into its own memory, which call of the communicator it is in (the
// call number, identical on every rank, and the state: entered, ready, refused, idle), when it
// entered it, the call's descriptor (for a rank that refused the call to take part, refusal.hpp)
// and why it refused a call. Nothing is sent while calls are on time: others read a slot only
// when something is wrong (the watchdog after the timeout, a refusing rank).
//
// When every rank of the communicator is on one node the window is MPI_Win_allocate_shared and
// every slot is read with loads (no MPI call, so the watchdog's thread needs no thread level);
// otherwise it is MPI_Win_allocate under MPI_Win_lock_all, read with MPI_Get (the watchdog's
// thread then needs MPI_THREAD_MULTIPLE). A reader copies a slot twice and accepts the copy when
// both agree (a slot may change while it is copied). A descriptor holds for a run of calls
// (seq..last, seq written last): a call whose descriptor equals the previous call's only extends
// the run (one store), since tight loops repeat one call; the slot keeps the latest four runs, so
// a rank that moved on to the next calls still shows the descriptor of the one a late refusing
// rank asks about.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "executor/mpi_status.hpp"

namespace papcoll::observe {

enum class CallState : std::uint8_t { idle = 0, entered = 1, ready = 2, refused = 3 };

inline std::uint64_t pack_word(std::uint64_t seq, CallState s) {
  return seq << 8 | static_cast<std::uint64_t>(s);
}
inline std::uint64_t word_seq(std::uint64_t w) { return w >> 8; }
inline CallState word_state(std::uint64_t w) { return static_cast<CallState>(w & 0xff); }

// What a rank publishes about the call it runs: enough for a rank that refused the same call to
// run it with stand-in data (the message pattern of allreduce, reduce and bcast with a predefined
// datatype and op; refusal.hpp).
struct JoinDescriptor {
  std::uint64_t seq;      // the first call it describes; kWriting while the fields change
  std::uint64_t last;     // the last call it describes (seq..last: a run of equal calls)
  std::int32_t collective;  // papcoll::Collective
  std::int32_t joinable;    // 0: a refusing rank cannot take part in this call
  std::int64_t count;
  std::int32_t type;       // mpi_names.hpp; -1: not a predefined type
  std::int32_t op;         // -1: none or not predefined
  std::int32_t root;       // -1: none
  std::int32_t algorithm;  // position in algorithms_for(collective); -1: the MPI library's
  std::int32_t blocks;     // options.blocks as given
  std::int32_t refused;    // 1: the rank refused this call (its slot's refusal says why)
  double alpha, beta, gamma;  // options as given
};

static_assert(offsetof(JoinDescriptor, collective) == 2 * sizeof(std::uint64_t) &&
                  sizeof(JoinDescriptor) == offsetof(JoinDescriptor, gamma) + sizeof(double),
              "no padding: descriptors are compared as bytes");

inline constexpr std::uint64_t kWriting = ~std::uint64_t{0};
inline constexpr int kDescriptorRing = 4;

// A slot lives in MPI window memory, whose segments MPI aligns only to 8 bytes (a shared window's
// segment of rank r starts r slots after rank 0's), so the type asks for no more than its words'
// alignment (call_board.cpp checks it), and its size keeps the next rank's slot word-aligned.
// (alignas(64) here made UBSan report every access as misaligned.)
struct BoardSlot {
  std::uint64_t word;   // pack_word(seq, state)
  double entry;         // the owner's steady clock at the entry of call `seq`; NaN: not read
                        // (the watchdog then times the call from when it first saw it)
  std::int32_t collective;  // of call `seq` (papcoll::Collective)
  std::int32_t reserved;
  JoinDescriptor desc[kDescriptorRing];  // the latest runs of calls, round robin
  std::uint64_t refusal_seq;
  std::int32_t refusal_code;
  std::int32_t world_rank;
  char refusal[112];  // the refusing rank's message (truncated)
  char host[64];      // written once, when the board is made
};
static_assert(sizeof(BoardSlot) % 8 == 0, "slots of a shared window stay word-aligned");

class Board {
 public:
  Board() = default;
  Board(const Board&) = delete;
  Board& operator=(const Board&) = delete;

  // Collective over `comm` (a private duplicate), every rank with the same `shared` (all ranks on
  // one node and shared reading allowed). Fails on every rank alike.
  MpiStatus open(MPI_Comm comm, bool shared);
  // Collective: frees the window.
  void close();
  // The call path's test: no load of MPI_WIN_NULL through the GOT (own_ is set once the window
  // is there, and cleared with it).
  bool is_open() const { return own_ != nullptr; }
  bool shared() const { return shared_; }
  int size() const { return size_; }

  // This rank's slot while the board is open, else null (CommObserver::slot).
  BoardSlot* own_slot() const { return own_; }

  // ---- the owner's stores (the call path) ----
  [[gnu::always_inline]] static void enter(BoardSlot* own, std::uint64_t seq, double entry,
                                           int collective) {
    std::atomic_ref<double>(own->entry).store(entry, std::memory_order_relaxed);
    own->collective = collective;
    store_word(own, pack_word(seq, CallState::entered));
  }
  [[gnu::always_inline]] void enter(std::uint64_t seq, double entry, int collective) {
    enter(own_, seq, entry, collective);
  }
  // Publishes the descriptor of call `seq` (d.seq and d.last are ignored), then the state ready.
  // The same fields as the previous call's descriptor: its run is extended to `seq`.
  void ready(std::uint64_t seq, const JoinDescriptor& d) {
    JoinDescriptor& cur = own_->desc[current_];
    if (cur.last + 1 == seq && cur.seq != kWriting &&
        std::memcmp(fields(&cur), fields(&d), kFieldBytes) == 0) {
      std::atomic_ref<std::uint64_t>(cur.last).store(seq, std::memory_order_release);
    } else {
      current_ = (current_ + 1) % kDescriptorRing;
      JoinDescriptor& slot = own_->desc[current_];
      std::atomic_ref<std::uint64_t>(slot.seq).store(kWriting, std::memory_order_relaxed);
      std::atomic_thread_fence(std::memory_order_release);
      std::memcpy(fields(&slot), fields(&d), kFieldBytes);
      slot.last = seq;
      std::atomic_ref<std::uint64_t>(slot.seq).store(seq, std::memory_order_release);
    }
    store_word(pack_word(seq, CallState::ready));
  }
  // The entry time of the current call, read after enter() (NaN there).
  void set_entry(double entry) {
    std::atomic_ref<double>(own_->entry).store(entry, std::memory_order_relaxed);
  }
  void refuse(std::uint64_t seq, int code, const char* message);
  [[gnu::always_inline]] static void leave(BoardSlot* own, std::uint64_t seq) {
    store_word(own, pack_word(seq, CallState::idle));
  }
  [[gnu::always_inline]] void leave(std::uint64_t seq) { leave(own_, seq); }
  std::uint64_t own_word() const {
    return std::atomic_ref<std::uint64_t>(own_->word).load(std::memory_order_acquire);
  }
  double own_entry() const {
    return std::atomic_ref<double>(own_->entry).load(std::memory_order_relaxed);
  }

  // ---- readers (error paths, the watchdog) ----
  // A consistent copy of `rank`'s slot (the owner's own slot too). Shared boards: loads; others:
  // MPI_Get from the calling thread. False when MPI failed.
  bool read(int rank, BoardSlot* out) const;
  // Non-shared boards, from the watchdog's thread: like read(), but gives up after `seconds`
  // (a rank that is not inside MPI may not answer a get under Open MPI's osc/pt2pt). False: no
  // answer in time (or MPI failed).
  bool read_within(int rank, BoardSlot* out, double seconds);
  // The descriptor of call `seq` in a copied slot, if it is there.
  static bool descriptor(const BoardSlot& s, std::uint64_t seq, JoinDescriptor* out);

 private:
  [[gnu::always_inline]] static void store_word(BoardSlot* own, std::uint64_t w) {
    std::atomic_ref<std::uint64_t>(own->word).store(w, std::memory_order_release);
  }
  [[gnu::always_inline]] void store_word(std::uint64_t w) { store_word(own_, w); }
  bool copy_once(int rank, BoardSlot* out) const;
  // A descriptor's fields after its run (seq, last), compared and copied as bytes: the struct
  // has no padding (static_assert below).
  static constexpr size_t kFieldBytes = sizeof(JoinDescriptor) - 2 * sizeof(std::uint64_t);
  static char* fields(JoinDescriptor* d) { return reinterpret_cast<char*>(&d->collective); }
  static const char* fields(const JoinDescriptor* d) {
    return reinterpret_cast<const char*>(&d->collective);
  }

  // The call path's, first.
  MPI_Win win_ = MPI_WIN_NULL;
  BoardSlot* own_ = nullptr;
  int current_ = 0;  // the ring entry of the latest run
  bool shared_ = false;
  int rank_ = 0;
  int size_ = 0;
  std::vector<BoardSlot*> slots_;  // shared boards: every rank's slot, mapped here
  // Gets the watchdog gave up on: their buffers live until the window is closed.
  struct Pending {
    MPI_Request request;
    BoardSlot* buffer;
  };
  std::vector<Pending> pending_;
};

}  // namespace papcoll::observe
