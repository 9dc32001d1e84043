// Clairvoyant(segment tree): Listing 8 with every improvement of Sect. 5.
//
//  * State (5.3): one bit per (process, segment), 1 = A/P, 0 = E; P' is stored as E plus the
//    per-process variable pprime (4.2) and turned back into P when the next round starts.
//  * Tree (5.4, bit_column_tree.hpp): the leaves are the 2P columns of the doubled index space
//    (5.4.3). Processes are numbered by fractional arrival time (f, rank); in a round whose head
//    has number h, a member with number i < h uses leaf i + P, the others leaf i, so leaf order is
//    G order. A leaf holds its process's column while the process is in G and has not sent this
//    round, zeros otherwise.
//  * Peer search (Listing 7): OR of all other leaves (Listing 3), AND with the receiver's own
//    column (not for the sink, which takes any segment but its P' one), first set bit = segment,
//    then the leftmost leaf holding it (Listings 4, 5) = peer.
//  * Updates (5.4.4): a sender's leaf is zeroed with one path update; the receiver's P' bit is
//    cleared bit-wise; at the start of a round the leaves of the old and new G are rewritten and
//    their ancestors rebuilt once each (batch rebuild of re-enabled columns).
//  * Active set by merge-and-clean (5.2, active_set.hpp); rounds with |G| <= 1 skipped (5.1).
//  * Pseudo-root (5.6): when the root is in G but not its head, it is processed first as the sink
//    and skipped at its own place; its leaf stays where its index puts it.
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "schedule/clairvoyant/active_set.hpp"
#include "schedule/clairvoyant/bit_column_tree.hpp"
#include "schedule/clairvoyant/clairvoyant.hpp"
#include "schedule/clairvoyant/clock.hpp"

namespace papcoll::clairvoyant {
namespace {

// S: the column stride in words when known at compile time (1, 2, 4, 8: N <= 512), else 0.
template <int S>
class SegtreeRun {
  using Col = Columns<S>;

 public:
  explicit SegtreeRun(const Instance& in)
      : in_(in),
        clk_(make_clock(in)),
        P_(in.p),
        N_(in.segments),
        W_(stride_words(in.segments)),
        tree_(2 * in.p, in.segments),
        state_(static_cast<size_t>(in.p) * W_, 0),
        pprime_(static_cast<size_t>(in.p), -1),
        leaf_(static_cast<size_t>(in.p), -1),
        number_(static_cast<size_t>(in.p)),
        proc_of_leaf_(static_cast<size_t>(2 * in.p)),
        col_(static_cast<size_t>(W_)),
        active_(clk_, in.p) {
    // Listing 8 line 1: every segment in state P (bits past N stay 0 and are never found).
    for (int c = 0; c < P_; ++c)
      for (int s = 0; s < N_; ++s) set_bit(column(c), s);
    // Sect. 5.4.3: number the processes by fractional arrival time, ties by rank.
    std::vector<int> by_f(static_cast<size_t>(P_));
    std::iota(by_f.begin(), by_f.end(), 0);
    std::sort(by_f.begin(), by_f.end(), [&](int a, int b) {
      return clk_.f[a] != clk_.f[b] ? clk_.f[a] < clk_.f[b] : a < b;
    });
    for (int i = 0; i < P_; ++i) {
      number_[by_f[i]] = i;
      proc_of_leaf_[i] = proc_of_leaf_[i + P_] = by_f[i];
    }
  }

  Result run() {
    Result res;
    res.state_bits = static_cast<double>(tree_.allocated_bits() + state_.size() * 64);
    // Every process but the root sends each segment at least once: about P*N transfers.
    res.transfers.reserve(static_cast<size_t>(P_) * static_cast<size_t>(N_) + 16);
    int done = 0;
    int64_t round = 0;
    const int root = in_.root;
    while (true) {
      // Lines 7-9: P' states become P again.
      for (int c : active_.members())
        if (pprime_[c] >= 0) {
          set_bit(column(c), pprime_[c]);
          pprime_[c] = -1;
        }
      old_leaves_.clear();
      for (int c : active_.members()) old_leaves_.push_back(leaf_[c]);
      // Line 10, and line 6: stop when every process but one (the root) is done.
      done += active_.merge_and_clean(round, [&](int c) { return empty(column(c)); });
      if (done >= P_ - 1) break;
      const std::vector<int>& G = active_.members();
      if (G.empty()) throw std::logic_error("clairvoyant(segtree): no active process");

      // Lines 11-12: leaves for this round's indices, then one batch rebuild.
      const int head_number = number_[G.front()];
      new_leaves_.clear();
      for (int l : old_leaves_) tree_.template clear_leaf<S>(l);
      for (int c : G) {
        leaf_[c] = number_[c] < head_number ? number_[c] + P_ : number_[c];
        tree_.template set_leaf<S>(leaf_[c], column(c));
        new_leaves_.push_back(leaf_[c]);
      }
      dirty_.clear();
      std::set_union(old_leaves_.begin(), old_leaves_.end(), new_leaves_.begin(),
                     new_leaves_.end(), std::back_inserter(dirty_));
      tree_.template rebuild<S>(dirty_);

      // Lines 13-16 (Sect. 5.1): alone in G, nothing can happen until the next arrival joins the
      // window; jump straight to that round.
      if (G.size() == 1) {
        round += idle_rounds(G.front(), round);
        continue;
      }
      ++res.busy_rounds;
      res.searches += static_cast<int64_t>(G.size());

      // Lines 18-37, with the pseudo-root.
      const int sink = active_.contains(root) ? root : G.front();
      receive(sink, true, round, res);
      for (int c : G)
        if (c != sink) receive(c, false, round, res);
      ++round;  // lines 38-40: every member of G advances by d
    }
    res.rounds = round;
    return res;
  }

 private:
  int nw() const { return S ? S : W_; }
  uint64_t* column(int c) { return state_.data() + static_cast<size_t>(c) * nw(); }
  static void set_bit(uint64_t* x, int b) { x[b >> 6] |= uint64_t{1} << (b & 63); }
  static void clear_bit(uint64_t* x, int b) { x[b >> 6] &= ~(uint64_t{1} << (b & 63)); }
  static bool test_bit(const uint64_t* x, int b) { return (x[b >> 6] >> (b & 63)) & 1u; }
  bool empty(const uint64_t* x) const { return Col::empty(x, W_); }

  // Rounds until the next awaiting process is inside the lone member's window: the first m with
  // (k_h + m, f_h) > (k_c - 1, f_c), i.e. t_h + m*d > t_c - d.
  int64_t idle_rounds(int h, int64_t round) const {
    const int c = active_.next_awaiting();
    if (c < 0) throw std::logic_error("clairvoyant(segtree): idle with nobody left to arrive");
    const int64_t m = clk_.k0[c] - 1 - active_.k_of(h, round) + (clk_.f[h] > clk_.f[c] ? 0 : 1);
    if (m < 1) throw std::logic_error("clairvoyant(segtree): bad idle-round skip");
    return m;
  }

  // Listing 7 (find-peer-and-segment) and Listing 8 lines 26-36 for receiver p.
  void receive(int p, bool sink, int64_t round, Result& res) {
    const int lp = leaf_[p];
    uint64_t* own = column(p);
    // FIND-PEER-SEGMENT: all-except-one AND the own column. FIND-PEER-ROOT-SEGMENT (the sink):
    // all-except-one without its P' segment (never set for the first receiver of a round).
    uint64_t* col = col_.data();
    tree_.template all_except_one<S>(lp, col);
    if (sink && pprime_[p] >= 0) clear_bit(col, pprime_[p]);
    const int seg = Col::first_common(col, sink ? nullptr : own, W_);
    if (seg < 0) return;
    int peer_leaf = tree_.template find_leftmost<S>(seg);
    if (peer_leaf == lp) peer_leaf = tree_.template find_leftmost_from<S>(lp, seg);
    const int z = proc_of_leaf_[peer_leaf];

    res.transfers.push_back({round, z, p, seg, !test_bit(own, seg)});
    clear_bit(column(z), seg);  // M(peer, seg) = E
    clear_bit(own, seg);        // M(p, seg) = P', kept as E plus pprime
    pprime_[p] = seg;
    tree_.template clear_bit<S>(lp, seg);
    tree_.template clear_leaf_and_update<S>(peer_leaf);  // the peer has sent: out for this round
  }

  const Instance& in_;
  const Clock clk_;
  const int P_, N_, W_;
  BitColumnTree tree_;
  std::vector<uint64_t> state_;  // the real columns ("saved copies" of Sect. 5.4.4)
  std::vector<int> pprime_;
  std::vector<int> leaf_;          // current leaf of each process
  std::vector<int> number_;        // index by fractional arrival time
  std::vector<int> proc_of_leaf_;  // leaf -> process
  std::vector<uint64_t> col_;
  std::vector<int> old_leaves_, new_leaves_, dirty_;
  ActiveSet active_;
};

}  // namespace

Result run_segtree(const Instance& in) {
  switch (in.segments >= 1 ? stride_words(in.segments) : 0) {
    case 1: return SegtreeRun<1>(in).run();
    case 2: return SegtreeRun<2>(in).run();
    case 4: return SegtreeRun<4>(in).run();
    case 8: return SegtreeRun<8>(in).run();
    default: return SegtreeRun<0>(in).run();  // also rejects bad input
  }
}

}  // namespace papcoll::clairvoyant
