#include "observe/refusal.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

namespace papcoll::observe {

Settled settle_refusal(CommObserver& o, std::uint64_t seq, JoinDescriptor* d) {
  if (!o.board.is_open() || !o.papcoll_context || o.size < 2) return Settled::alone;
  auto pause = std::chrono::microseconds(20);
  for (;;) {
    int refusing = 1;
    for (int q = 0; q < o.size; ++q) {
      if (q == o.rank) continue;
      BoardSlot s;
      if (!o.board.read(q, &s)) return Settled::alone;
      const std::uint64_t qs = word_seq(s.word);
      const CallState st = word_state(s.word);
      if (JoinDescriptor jd; Board::descriptor(s, seq, &jd)) {
        if (jd.refused) {
          ++refusing;
          continue;
        }
        *d = jd;
        return jd.joinable ? Settled::join : Settled::not_joinable;
      }
      if (qs < seq) continue;  // not there yet
      if (qs == seq && st == CallState::entered) continue;  // its descriptor comes before any message
      return Settled::went_on;
    }
    if (refusing == o.size) return Settled::all_refused;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(1000));
  }
}

}  // namespace papcoll::observe
