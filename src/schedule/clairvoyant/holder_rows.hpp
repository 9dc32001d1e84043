// Who can send a segment, by segment: the peer query of Clairvoyant(segtree) (segtree.cpp).
//
// The segment tree (bit_column_tree.hpp) answers "which segments does some leaf hold", a column
// OR. Listing 7 then finds the peer, the leftmost other leaf holding the chosen segment, by
// descending the tree (Listings 4 and 5): one bit test per level, each in another 64-byte node,
// and a walk to the right when the descent ends at the receiver itself. At P = N = 512 those
// descents were a third of the generation time. This class answers that question directly from
// the transposed state: row s has one bit per process (1 = it can send s: A/P; Clairvoyant(segtree)
// also leaves P' set and skips those holders itself), so the peer is the first set bit of row(s)
// AND avail (the members of G that have not sent this round), in G order: a few word ANDs and one
// count-trailing-zeros.
//
// G order from positions. Processes get positions once, in the order of their fractional arrival
// times f (ties by rank): Sect. 5.4.3's index order. The members of a round all lie in
// [head, head + d), so those at round index k_head have f >= f_head and those at k_head + 1 have
// f < f_head: G order is position order started at the head's position and wrapped around (the
// doubled index space of 5.4.3, read cyclically instead of stored twice). Positions never change,
// so the rows are kept up to date bit by bit and never rebuilt.
//
// One more bit per (process, segment) pair: 3 in all with the tree (Sect. 5.5 budgets 5).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "schedule/clairvoyant/clock.hpp"

namespace papcoll::clairvoyant {

class HolderRows {
 public:
  HolderRows(const Clock& clk, int p, int segments)
      : q_((p + 63) / 64),
        pos_(static_cast<size_t>(p)),
        proc_at_(static_cast<size_t>(p)),
        rows_(static_cast<size_t>(segments) * static_cast<size_t>(q_), 0),
        avail_(static_cast<size_t>(q_), 0),
        word_(static_cast<size_t>(q_) + 1),
        mask_(static_cast<size_t>(q_) + 1) {
    for (int c = 0; c < p; ++c) proc_at_[c] = c;
    std::sort(proc_at_.begin(), proc_at_.end(),
              [&](int a, int b) { return clk.f[a] != clk.f[b] ? clk.f[a] < clk.f[b] : a < b; });
    for (int i = 0; i < p; ++i) pos_[proc_at_[i]] = i;
    // Every process holds every segment in P (Listing 8 line 1).
    for (int s = 0; s < segments; ++s) {
      uint64_t* r = row(s);
      for (int w = 0; w < p / 64; ++w) r[w] = ~uint64_t{0};
      if (p % 64) r[p / 64] = (uint64_t{1} << (p % 64)) - 1;
    }
  }

  size_t allocated_bits() const { return rows_.size() * 64; }
  // Process c's position (fractional-arrival order; G order is this order, rotated).
  int pos(int c) const { return pos_[static_cast<size_t>(c)]; }

  // The process at position `pos` (pos(c) for process c: the caller keeps it beside its other
  // per-process data) can send segment s (set) or not (clear). Clairvoyant(segtree) keeps P' as
  // set and skips such holders itself (segtree.cpp, holder()).
  void set(int s, int pos) { flip_on(row(s), pos); }
  void clear(int s, int pos) { flip_off(row(s), pos); }

  // A round with members G (in G order) begins: all of them can send.
  void start_round(const std::vector<int>& G) {
    std::fill(avail_.begin(), avail_.end(), 0);
    for (int c : G) flip_on(avail_.data(), pos_[c]);
    // Words in G order: the head's word from the head's bit on, the following words, and the
    // head's word again below the head's bit.
    const int r0 = pos_[G.front()];
    const int w0 = r0 >> 6;
    for (int i = 0; i < q_; ++i) {
      word_[i] = (w0 + i) % q_;
      mask_[i] = ~uint64_t{0};
    }
    mask_[0] = ~uint64_t{0} << (r0 & 63);
    word_[q_] = w0;
    mask_[q_] = ~mask_[0];
    cursor_ = 0;
    skip_empty();
  }
  // The process at `pos` has sent: no longer a peer this round.
  void sent(int pos) {
    flip_off(avail_.data(), pos);
    skip_empty();
  }
  // The receiver is never its own peer: hide it during its search (restore with unhide).
  uint64_t hide(int pos) {
    uint64_t& w = avail_[static_cast<size_t>(pos >> 6)];
    const uint64_t saved = w;
    w &= ~bit_of(pos);
    return saved;
  }
  void unhide(int pos, uint64_t saved) { avail_[static_cast<size_t>(pos >> 6)] = saved; }

  // The first process in G order that is not hidden, has not sent this round and has s set, or -1.
  int holder(int s) const {
    const uint64_t* r = rows_.data() + static_cast<size_t>(s) * static_cast<size_t>(q_);
    for (int i = cursor_; i <= q_; ++i) {
      const int w = word_[static_cast<size_t>(i)];
      if (const uint64_t x = r[w] & avail_[static_cast<size_t>(w)] & mask_[static_cast<size_t>(i)])
        return proc_at_[static_cast<size_t>(w * 64 + __builtin_ctzll(x))];
    }
    return -1;
  }

 private:
  static uint64_t bit_of(int pos) { return uint64_t{1} << (pos & 63); }
  static void flip_on(uint64_t* x, int pos) { x[pos >> 6] |= bit_of(pos); }
  static void flip_off(uint64_t* x, int pos) { x[pos >> 6] &= ~bit_of(pos); }
  uint64_t* row(int s) { return rows_.data() + static_cast<size_t>(s) * static_cast<size_t>(q_); }
  // The members at the front of G order that have sent stay sent for the rest of the round, so
  // the search starts at the first word (in G order) that still has a member to offer.
  void skip_empty() {
    while (cursor_ <= q_ && !(avail_[static_cast<size_t>(word_[static_cast<size_t>(cursor_)])] &
                              mask_[static_cast<size_t>(cursor_)]))
      ++cursor_;
  }

  const int q_;                  // words per row: ceil(P / 64)
  std::vector<int> pos_;         // process -> position (fractional-arrival order)
  std::vector<int> proc_at_;     // position -> process
  std::vector<uint64_t> rows_;   // row s: bit pos set = that process can send s (set())
  std::vector<uint64_t> avail_;  // bit pos set = a member of G that has not sent this round
  std::vector<int> word_;        // avail_'s words in G order (q_ + 1 entries) ...
  std::vector<uint64_t> mask_;   // ... and the bits of each entry that belong to it
  int cursor_ = 0;               // the first entry of word_ with a bit of avail_ set
};

}  // namespace papcoll::clairvoyant
