// The call board of a communicator: one slot per rank in an MPI-3 window, in which each rank
// writes, with plain stores into its own memory, which call of the communicator it is in (the
// call number, identical on every rank, and the state: entered, ready, refused, idle), when it
// entered it, the call as it passes it (BoardCall: published after its argument checks, before
// any of its communication) and why it erred in a call. Nothing is sent while calls are on time:
// others read a slot only when something is wrong (the watchdog after the timeout, a rank that
// refused a call, a rank told that a call failed elsewhere).
//
// The board is made at the communicator's first papcoll call, before any argument is checked
// (comm_observer.hpp), so that a rank's refusal of the very first call is settled like any other
// (refusal.hpp). One word of each slot is written by the other ranks: `peer_failed`, the latest
// call in which another rank took part with stand-in data that this rank's result contains
// (notify); the owner reads it with one load at the end of every call.
//
// When every rank of the communicator is on one node the window is MPI_Win_allocate_shared and
// every slot is read with loads (no MPI call, so the watchdog's thread needs no thread level);
// otherwise it is MPI_Win_allocate under MPI_Win_lock_all, read with MPI_Get (the watchdog's
// thread then needs MPI_THREAD_MULTIPLE) and `peer_failed` raised with MPI_Accumulate. A reader
// copies a slot twice and accepts the copy when both agree (a slot may change while it is
// copied). A published call holds for a run of calls (seq..last, seq written last): a call equal
// to the previous one only extends the run (one store), since tight loops repeat one call; the
// slot keeps the latest four runs, so a rank that moved on still shows the call a late refusing
// rank asks about. What does not fit a fixed-size record (an agreed arrival vector, every
// portion's size) follows the slot in the rank's segment (BoardExtension), for the latest run.
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

// BoardCall::flags.
enum BoardCallFlag : std::uint32_t {
  kCallRefused = 1,          // the rank refused the call: it could not know its pattern
  kCallStandIn = 2,          // the rank takes part with stand-in data (its own data is missing)
  kCallMonitor = 4,          // the options name a progress monitor
  kCallArrivals = 8,         // options.arrivals is given
  kCallArrivalsAgreed = 16,  // ... with arrivals_agreed: the vector is in the extension
  kCallPortions = 32,        // the extension holds every portion's bytes (all-gatherv; the root
                             // of scatterv/gatherv)
  kCallMpiOnly = 64,         // a call the interposition library handed to the MPI library: only
                             // its operation, root and algorithm ("native") are known
};

// BoardCall::algorithm besides positions in algorithms_for(collective).
inline constexpr std::int32_t kAlgorithmNative = -1;
inline constexpr std::int32_t kAlgorithmAuto = -2;
// BoardCall::op besides mpi_names.hpp's indices: none (-1) and a user-defined op.
inline constexpr std::int32_t kUserOp = -2;

// A call as one rank passes it: what another rank that refused the same call needs to take part
// in it with stand-in data (refusal.hpp), and what the watchdog compares between ranks.
struct BoardCall {
  std::uint64_t seq;        // the first call it describes; kWriting while the fields change
  std::uint64_t last;       // the last call it describes (seq..last: a run of equal calls)
  std::int32_t collective;  // papcoll::Collective
  std::uint32_t flags;      // BoardCallFlag
  std::int64_t count;       // the caller's count (all-gatherv: the sum of recvcounts)
  std::int64_t units;       // what every rank agrees on: reductions, elements of unit_type;
                            // bcast, all-gatherv: bytes; scatterv/gatherv: the own portion's bytes
  std::int32_t type;        // mpi_names.hpp index of the datatype; -1: not predefined
  std::int32_t unit_type;   // reductions: index of the one predefined type it is made of
  std::int32_t op;          // index of the op; -1: none; kUserOp
  std::int32_t root;        // -1: none
  std::int32_t algorithm;   // as named: kAlgorithmAuto, kAlgorithmNative or a position
  std::int32_t blocks;      // options.blocks as given
  double alpha, beta, gamma;    // options as given
  std::uint64_t arrivals_hash;  // of the agreed arrival times in the extension (0: none)
  std::uint64_t portions_hash;  // of the portions in the extension (0: none)
};

static_assert(offsetof(BoardCall, collective) == 2 * sizeof(std::uint64_t) &&
                  sizeof(BoardCall) == offsetof(BoardCall, portions_hash) + sizeof(std::uint64_t),
              "no padding: calls are compared as bytes");

inline constexpr std::uint64_t kWriting = ~std::uint64_t{0};
inline constexpr int kCallRing = 4;
inline constexpr int kProblemRing = 2;

// Why a rank erred in call `seq` (refused it, or took part with stand-ins).
struct BoardProblem {
  std::uint64_t seq;
  std::int32_t code;
  std::int32_t reserved;
  char message[112];  // truncated
};

// A slot lives in MPI window memory, whose segments MPI aligns only to 8 bytes (a shared window's
// segment of rank r starts r segments after rank 0's), so the type asks for no more than its
// words' alignment (call_board.cpp checks it), and its size keeps what follows word-aligned.
// (alignas(64) here made UBSan report every access as misaligned.)
struct BoardSlot {
  std::uint64_t word;         // pack_word(seq, state)
  std::uint64_t peer_failed;  // written by other ranks only (Board::notify)
  double entry;               // the owner's steady clock at the entry of call `seq`; NaN: not
                              // read (the watchdog then times the call from when it saw it)
  std::int32_t collective;    // of call `seq` (papcoll::Collective)
  std::int32_t world_rank;
  BoardCall calls[kCallRing];           // the latest runs of calls, round robin
  BoardProblem problems[kProblemRing];  // by seq % kProblemRing
  char host[64];                        // written once, when the board is made
};
static_assert(sizeof(BoardSlot) % 8 == 0, "what follows a slot stays word-aligned");

// After each slot in its rank's segment: the arrays of the latest run that has any, p entries
// each (arrivals, then portions).
struct BoardExtension {
  std::uint64_t seq;  // kWriting while written
  std::uint64_t last;
  std::int32_t arrivals;  // entries: 0 or p
  std::int32_t portions;  // entries: 0 or p
};
static_assert(sizeof(BoardExtension) % 8 == 0, "the arrays stay word-aligned");

// The arrays a rank published for a call (read_extension).
struct CallArrays {
  std::vector<double> arrivals;
  std::vector<long long> portions;
};

// A hash of an array's bytes, for BoardCall's hashes (0 only for an empty one).
std::uint64_t bytes_hash(const void* data, size_t bytes);

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
  // Publishes call `seq` as this rank passes it (c.seq and c.last are ignored) with its arrays
  // (null, or p entries: arrivals, portions), then the state ready. The same fields as the
  // previous call's: its run is extended to `seq`.
  void publish(std::uint64_t seq, const BoardCall& c, const double* arrivals,
               const long long* portions);
  // The same for a call without arrays held by the caller at a stable address, unchanged since it
  // was last published from there (api/refusal_join.cpp publish_call's memo): when the latest run
  // is that call's, one store extends it, without comparing the fields.
  [[gnu::always_inline]] void publish_same(std::uint64_t seq, const BoardCall& c) {
    BoardCall& cur = own_->calls[current_];
    if (&c == current_source_ && cur.last + 1 == seq) [[likely]] {
      std::atomic_ref<std::uint64_t>(cur.last).store(seq, std::memory_order_release);
      store_word(pack_word(seq, CallState::ready));
      return;
    }
    publish(seq, c, nullptr, nullptr);
    current_source_ = &c;
  }
  // The steady state of a loop of one call the interposition library hands to the MPI library:
  // call `seq` extends the latest run when that is the same such call (a few compares and one
  // store). False when it is not: publish() it then.
  [[gnu::always_inline]] bool extend_mpi_call(std::uint64_t seq, int collective, int root) {
    BoardCall& cur = own_->calls[current_];
    if (cur.last + 1 != seq || (cur.flags & kCallMpiOnly) == 0 || cur.collective != collective ||
        cur.root != root)
      return false;
    std::atomic_ref<std::uint64_t>(cur.last).store(seq, std::memory_order_release);
    return true;
  }
  // The entry time of the current call, read after enter() (NaN there).
  void set_entry(double entry) {
    std::atomic_ref<double>(own_->entry).store(entry, std::memory_order_relaxed);
  }
  // This rank refused call `seq`: its problem, a call flagged kCallRefused, the state refused.
  void refuse(std::uint64_t seq, int collective, int code, const char* message);
  // Why this rank erred in call `seq` (it takes part with stand-ins; refuse() records it too).
  void note_problem(std::uint64_t seq, int code, const char* message);
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
  // The latest call in which another rank said it took part with stand-in data this rank's result
  // contains (notify). One load of this rank's own slot.
  [[gnu::always_inline]] static std::uint64_t peer_failed(const BoardSlot* own) {
    return std::atomic_ref<std::uint64_t>(const_cast<BoardSlot*>(own)->peer_failed)
        .load(std::memory_order_acquire);
  }

  // ---- other ranks' slots ----
  // Raises `rank`'s peer_failed to at least `seq` and returns once it is done there (shared
  // boards: an atomic maximum in its memory; others: MPI_Accumulate with MPI_MAX, then
  // MPI_Win_flush). Before any message that carries the stand-in data, so that a rank whose result
  // contains it reads the word after it was raised. False when MPI failed.
  bool notify(int rank, std::uint64_t seq);

  // ---- readers (error paths, the watchdog) ----
  // A consistent copy of `rank`'s slot (the owner's own slot too). Shared boards: loads; others:
  // MPI_Get from the calling thread. False when MPI failed.
  bool read(int rank, BoardSlot* out) const;
  // Non-shared boards, from the watchdog's thread: like read(), but gives up after `seconds`
  // (a rank that is not inside MPI may not answer a get under Open MPI's osc/pt2pt). False: no
  // answer in time (or MPI failed).
  bool read_within(int rank, BoardSlot* out, double seconds);
  // The arrays `rank` published for call `seq`, if its extension still holds that call's run.
  bool read_extension(int rank, std::uint64_t seq, CallArrays* out) const;
  // Call `seq` in a copied slot, if it is there.
  static bool call(const BoardSlot& s, std::uint64_t seq, BoardCall* out);
  // The problem of call `seq` in a copied slot, if it is there.
  static const BoardProblem* problem(const BoardSlot& s, std::uint64_t seq);

 private:
  [[gnu::always_inline]] static void store_word(BoardSlot* own, std::uint64_t w) {
    std::atomic_ref<std::uint64_t>(own->word).store(w, std::memory_order_release);
  }
  [[gnu::always_inline]] void store_word(std::uint64_t w) { store_word(own_, w); }
  bool copy_once(int rank, void* out, size_t bytes, MPI_Aint offset) const;
  bool read_bytes(int rank, void* out, size_t bytes, MPI_Aint offset) const;
  BoardExtension* own_extension() const {
    return reinterpret_cast<BoardExtension*>(reinterpret_cast<char*>(own_) + sizeof(BoardSlot));
  }
  // A call's fields after its run (seq, last), compared and copied as bytes: the struct has no
  // padding (static_assert above).
  static constexpr size_t kFieldBytes = sizeof(BoardCall) - 2 * sizeof(std::uint64_t);
  static char* fields(BoardCall* d) { return reinterpret_cast<char*>(&d->collective); }
  static const char* fields(const BoardCall* d) {
    return reinterpret_cast<const char*>(&d->collective);
  }
  void write_extension(std::uint64_t seq, const double* arrivals, const long long* portions);

  // The call path's, first.
  MPI_Win win_ = MPI_WIN_NULL;
  BoardSlot* own_ = nullptr;
  int current_ = 0;                            // the ring entry of the latest run
  const BoardCall* current_source_ = nullptr;  // publish_same(): the latest run's memo
  bool shared_ = false;
  bool extension_current_ = false;  // the extension belongs to the latest run
  int rank_ = 0;
  int size_ = 0;
  MPI_Aint segment_ = 0;      // bytes of a rank's segment: its slot, its extension and the arrays
  std::vector<char*> slots_;  // shared boards: every rank's segment, mapped here
  // Gets the watchdog gave up on: their buffers live until the window is closed.
  struct Pending {
    MPI_Request request;
    BoardSlot* buffer;
  };
  std::vector<Pending> pending_;
};

}  // namespace papcoll::observe
