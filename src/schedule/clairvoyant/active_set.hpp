// The set G of processes taking part in a round, without a priority queue (Sect. 5.2, Listing 6).
//
// A process that is in G stays in G until it is done: the survivors of a round span less than one
// round time and all advance by d, and the next head is no earlier than the old head + d, so every
// survivor is inside the next window. Their relative order never changes either. The next G is
// therefore a merge of the survivors (in order) with the head of the awaiting queue A (processes
// sorted by arrival, ties by rank) while A's head is inside the window: O(|G|) per round and
// O(P log P) once for sorting A (Lemma 2).
//
// Times are exact (clock.hpp): a member c of G is available at round index base(c) + round.
#pragma once

#include <cstdint>
#include <vector>

#include "schedule/clairvoyant/clock.hpp"

namespace papcoll::clairvoyant {

class ActiveSet {
 public:
  ActiveSet(const Clock& clock, int p);

  // merge-and-clean (Listing 6): G for `round` from the previous G, dropping the processes for
  // which done(c) holds (the "clean"), and taking from A those inside the new head's window.
  // Returns how many processes were dropped.
  template <typename Done>
  int merge_and_clean(int64_t round, Done done);

  const std::vector<int>& members() const { return g_; }
  bool contains(int c) const { return in_g_[c] != 0; }
  int64_t k_of(int c, int64_t round) const { return base_[c] + round; }
  // The earliest process not yet in G, or -1.
  int next_awaiting() const { return a_next_ < awaiting_.size() ? awaiting_[a_next_] : -1; }

 private:
  const Clock& clk_;
  std::vector<int> awaiting_;  // A, sorted by arrival
  size_t a_next_ = 0;
  std::vector<int> g_, next_;
  std::vector<int64_t> base_;
  std::vector<char> in_g_;
};

template <typename Done>
int ActiveSet::merge_and_clean(int64_t round, Done done) {
  int dropped = 0;
  size_t gi = 0;
  auto skip_done = [&] {
    while (gi < g_.size() && done(g_[gi])) {
      in_g_[g_[gi]] = 0;
      ++dropped;
      ++gi;
    }
  };
  next_.clear();
  skip_done();
  // Line 1: the head is the earlier of G's and A's heads.
  int head = -1;
  int64_t kh = 0;
  const int a0 = next_awaiting();
  if (gi < g_.size() && (a0 < 0 || clk_.before(k_of(g_[gi], round), g_[gi], clk_.k0[a0], a0))) {
    head = g_[gi];
    kh = k_of(head, round);
  } else if (a0 >= 0) {
    head = a0;
    kh = clk_.k0[a0];
  }
  while (head >= 0) {  // lines 3-14
    skip_done();
    const bool g_ok = gi < g_.size();
    const int a = next_awaiting();
    const bool a_ok = a >= 0 && clk_.in_window(clk_.k0[a], a, kh, head);
    if (!g_ok && !a_ok) break;
    if (g_ok && (!a_ok || clk_.before(k_of(g_[gi], round), g_[gi], clk_.k0[a], a))) {
      next_.push_back(g_[gi++]);
    } else {
      base_[a] = clk_.k0[a] - round;
      in_g_[a] = 1;
      next_.push_back(a);
      ++a_next_;
    }
  }
  g_.swap(next_);
  return dropped;
}

}  // namespace papcoll::clairvoyant
