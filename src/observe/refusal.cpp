#include "observe/refusal.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

namespace papcoll::observe {
namespace {

// Polls with a back-off: the others are usually a few microseconds away, sometimes seconds.
class Backoff {
 public:
  void wait() {
    std::this_thread::sleep_for(pause_);
    pause_ = std::min(pause_ * 2, std::chrono::microseconds(1000));
  }

 private:
  std::chrono::microseconds pause_{20};
};

enum class Shows { call, refused, not_yet, gone, unreadable };

// What `rank`'s slot shows of call `seq`.
Shows look(const CommObserver& o, int rank, std::uint64_t seq, BoardCall* c) {
  BoardSlot s;
  if (!o.board.read(rank, &s)) return Shows::unreadable;
  if (Board::call(s, seq, c)) return (c->flags & kCallRefused) ? Shows::refused : Shows::call;
  const std::uint64_t qs = word_seq(s.word);
  if (qs < seq) return Shows::not_yet;
  // In call seq but not published yet: it publishes before any communication of the call.
  if (qs == seq && word_state(s.word) == CallState::entered) return Shows::not_yet;
  return Shows::gone;
}

bool needs_arrays(const BoardCall& c) {
  return (c.flags & (kCallArrivalsAgreed | kCallPortions)) != 0;
}

}  // namespace

Settled settle_refusal(CommObserver& o, std::uint64_t seq, FoundCall* found) {
  if (!o.board.is_open() || o.size < 2) return Settled::alone;
  Backoff backoff;
  for (;;) {
    int refusing = 1, gone = 0;
    for (int q = 0; q < o.size; ++q) {
      if (q == o.rank) continue;
      BoardCall c;
      switch (look(o, q, seq, &c)) {
        case Shows::unreadable: return Settled::alone;
        case Shows::refused: ++refusing; break;
        case Shows::not_yet: break;
        case Shows::gone: ++gone; break;
        case Shows::call:
          found->rank = q;
          found->call = c;
          found->arrays = CallArrays{};
          if (!needs_arrays(c) || o.board.read_extension(q, seq, &found->arrays))
            return Settled::substitute;
          ++gone;  // its arrays are of a later call already: another rank may still have them
          break;
      }
    }
    if (refusing == o.size) return Settled::all_refused;
    if (refusing + gone == o.size) return Settled::went_on;
    backoff.wait();
  }
}

bool published_call(CommObserver& o, std::uint64_t seq, int rank, FoundCall* found) {
  if (!o.board.is_open() || rank < 0 || rank >= o.size) return false;
  Backoff backoff;
  for (;;) {
    BoardCall c;
    switch (look(o, rank, seq, &c)) {
      case Shows::call:
        found->rank = rank;
        found->call = c;
        found->arrays = CallArrays{};
        return !needs_arrays(c) || o.board.read_extension(rank, seq, &found->arrays);
      case Shows::not_yet: backoff.wait(); break;
      default: return false;
    }
  }
}

bool published_calls(CommObserver& o, std::uint64_t seq, std::vector<BoardCall>* out) {
  if (!o.board.is_open()) return false;
  out->resize(static_cast<size_t>(o.size));
  for (int q = 0; q < o.size; ++q) {
    if (q == o.rank) continue;
    FoundCall f;
    BoardCall c;
    Backoff backoff;
    for (;;) {
      const Shows s = look(o, q, seq, &c);
      if (s == Shows::call) break;
      if (s != Shows::not_yet) return false;
      backoff.wait();
    }
    (*out)[static_cast<size_t>(q)] = c;
  }
  return true;
}

}  // namespace papcoll::observe
