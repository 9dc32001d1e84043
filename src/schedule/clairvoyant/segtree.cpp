// Clairvoyant(segment tree): Listing 8 with every improvement of Sect. 5.
//
//  * State (5.3): one bit per (process, segment), 1 = A/P, 0 = E; P' is stored as E plus the
//    per-process variable pprime (4.2) and turned back into P when the next round starts.
//  * Tree (5.4, bit_column_tree.hpp): the leaves are the columns of this round's G, in G order. A
//    leaf is its process's state column itself (not a copy) until the process sends in this
//    round, the zero column after.
//    Sect. 5.4.3 numbers the processes by fractional arrival time in a doubled index space (i or
//    i + P) so that leaf order is G order without re-sorting; merge-and-clean (5.2) already yields
//    G in exactly that order, and nearly every member sends in a round, so nearly every leaf is
//    rewritten anyway. The tree therefore holds only the |G| occupied leaves of that space, in the
//    same order: log2 |G| levels instead of log2 2P, and m - 1 internal columns for m >= |G|
//    instead of 4P - 1. Same peers, same segments.
//  * Peer search (Listing 7): the first segment of (OR of all other leaves (Listing 3)) AND the
//    receiver's own column (not for the sink, which takes any segment but its P' one), then the
//    first other member of G, in G order, that holds it and has not sent = peer. The candidates
//    are the root node's bits AND the own column, tried one at a time; after one without
//    another holder, or from the start in a small tree, the whole OR column is built
//    (find_segment). The peer comes from a transposed copy of the state (holder_rows.hpp: one
//    AND and one count-trailing-zeros) instead of the tree descents of Listings 4 and 5, which
//    took a third of the time at P = N = 512.
//  * Updates (5.4.4): a sender's leaf is zeroed with one path update; the receiver's P' bit is
//    cleared bit-wise; at the start of a round every leaf is set and all internal nodes are
//    rebuilt once, bottom-up (batch rebuild of the re-enabled columns).
//  * Done test (line 10): a count of the segments each process holds, not a scan of its column.
//  * Active set by merge-and-clean (5.2, active_set.hpp); rounds with |G| <= 1 skipped (5.1).
//  * Pseudo-root (5.6): when the root is in G but not its head, it is processed first as the sink
//    and skipped at its own place; its leaf stays at its place in G order.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "schedule/clairvoyant/active_set.hpp"
#include "schedule/clairvoyant/bit_column_tree.hpp"
#include "schedule/clairvoyant/clairvoyant.hpp"
#include "schedule/clairvoyant/clock.hpp"
#include "schedule/clairvoyant/holder_rows.hpp"

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
        tree_(in.p, in.segments),
        state_(static_cast<size_t>(in.p) * W_, 0),
        col_(static_cast<size_t>(W_)),
        rows_(clk_, in.p, in.segments),
        procs_(static_cast<size_t>(in.p)),
        active_(clk_, in.p) {
    for (int c = 0; c < P_; ++c) {
      procs_[c].held = N_;
      procs_[c].pos = rows_.pos(c);
    }
    // Listing 8 line 1: every segment in state P (bits past N stay 0 and are never found).
    for (int c = 0; c < P_; ++c) {
      uint64_t* x = column(c);
      for (int w = 0; w < N_ / 64; ++w) x[w] = ~uint64_t{0};
      if (N_ % 64) x[N_ / 64] = (uint64_t{1} << (N_ % 64)) - 1;
    }
  }

  Result run() {
    Result res;
    res.state_bits =
        static_cast<double>(tree_.allocated_bits() + state_.size() * 64 + rows_.allocated_bits());
    // Every process but the root sends each segment at least once: about P*N transfers.
    res.transfers.reserve(static_cast<size_t>(P_) * static_cast<size_t>(N_) + 16);
    int done = 0;
    int64_t round = 0;
    const int root = in_.root;
    while (true) {
      // Lines 7-9: P' states become P again.
      for (int c : active_.members())
        if (Proc& pc = procs_[c]; pc.pprime >= 0) {
          set_bit(column(c), pc.pprime);
          pc.first_word = std::min(pc.first_word, pc.pprime >> 6);
          pc.pprime = -1;
        }
      // Line 10, and line 6: stop when every process but one (the root) is done.
      done += active_.merge_and_clean(round, [&](int c) { return procs_[c].held == 0; });
      if (done >= P_ - 1) break;
      const std::vector<int>& G = active_.members();
      if (G.empty()) throw std::logic_error("clairvoyant(segtree): no active process");

      // Lines 13-16 (Sect. 5.1): alone in G, nothing can happen until the next arrival joins the
      // window; jump straight to that round.
      if (G.size() == 1) {
        round += idle_rounds(G.front(), round);
        continue;
      }
      // Lines 11-12: the leaves for this round, then one batch rebuild (5.4.3, 5.4.4).
      tree_.reset(static_cast<int>(G.size()));
      for (size_t j = 0; j < G.size(); ++j) {
        procs_[G[j]].leaf = static_cast<int>(j);
        tree_.set_leaf(static_cast<int>(j), column(G[j]));
      }
      tree_.template build<S>();
      rows_.start_round(G);
      ++res.busy_rounds;
      res.searches += static_cast<int64_t>(G.size());

      // Lines 18-37, with the pseudo-root.
      const int sink = active_.contains(root) ? root : G.front();
      const size_t first = res.transfers.size();
      receive(sink, true, res);
      for (int c : G)
        if (c != sink) receive(c, false, res);
      if (res.transfers.size() > first) res.round_starts.push_back({round, first});
      ++round;  // lines 38-40: every member of G advances by d
    }
    res.rounds = round;
    return res;
  }

 private:
  int nw() const { return S ? S : W_; }
  // Columns are stored in position order, which is G order up to a rotation: the receivers of a
  // round, and mostly the peers too, walk through the state in address order.
  uint64_t* column(int c) { return state_.data() + static_cast<size_t>(procs_[c].pos) * nw(); }
  static void set_bit(uint64_t* x, int b) { x[b >> 6] |= uint64_t{1} << (b & 63); }
  static void clear_bit(uint64_t* x, int b) { x[b >> 6] &= ~(uint64_t{1} << (b & 63)); }
  static bool test_bit(const uint64_t* x, int b) { return (x[b >> 6] >> (b & 63)) & 1u; }

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
  [[gnu::always_inline]] inline void receive(int p, bool sink, Result& res) {
    Proc& pp = procs_[p];
    const int lp = pp.leaf;
    uint64_t* own = column(p);
    // FIND-PEER-SEGMENT: the first bit of all-except-one AND the own column. FIND-PEER-ROOT-SEGMENT
    // (the sink): the first bit of all-except-one without its P' segment (never set for the first
    // receiver of a round). Usually the first candidate (a bit of the root node, AND own) is held
    // by another member too, so candidates are tested one at a time against the rows; after a
    // miss the whole all-except-one column is built (Listing 3) and searched instead.
    const uint64_t hidden = rows_.hide(pp.pos);
    int z = -1;
    const int seg = find_segment(p, lp, own, sink, &z);
    rows_.unhide(pp.pos, hidden);
    if (seg < 0) return;
    if (z < 0) throw std::logic_error("clairvoyant(segtree): a segment without a peer");

    const bool copy = !test_bit(own, seg);
    res.transfers.push_back({z, p, static_cast<uint32_t>(seg), copy});  // round_starts: run()
    Proc& pz = procs_[z];
    --pz.held;
    if (copy) ++pp.held;
    // The peer has sent: out of the tree for this round. The receiver's ancestors lose the bit
    // where nothing else below them has it.
    tree_.template clear_leaf_and_update<S>(pz.leaf);
    rows_.sent(pz.pos);
    clear_bit(column(z), seg);  // M(peer, seg) = E
    clear_bit(own, seg);        // M(p, seg) = P', kept as E plus pprime
    rows_.clear(seg, pz.pos);
    // The rows keep P' as P (holder() skips it this round): no row is touched again when the
    // round ends. Only a receive into E changes the receiver's row bit.
    if (copy) rows_.set(seg, pp.pos);
    pp.pprime = seg;
    tree_.template clear_bit<S>(lp, seg);
  }

  // The first member of G in G order that holds s in A/P (not P') and has not sent, or -1.
  // The rows do not tell P' from P (a receive would otherwise clear a row bit and the round's end
  // set it again, a cache miss per transfer); a member that received s in this round is hidden
  // and the search repeated (about one transfer in ten at P = N = 512).
  int holder(int s) {
    int z = rows_.holder(s);
    if (z < 0 || procs_[z].pprime != s) return z;
    while (z >= 0 && procs_[z].pprime == s) {
      hidden_.push_back({procs_[z].pos, rows_.hide(procs_[z].pos)});
      z = rows_.holder(s);
    }
    for (size_t i = hidden_.size(); i-- > 0;) rows_.unhide(hidden_[i].first, hidden_[i].second);
    hidden_.clear();
    return z;
  }
  std::vector<std::pair<int, uint64_t>> hidden_;  // (position, saved word) of hidden members

  // The segment and the peer for receiver p at leaf lp, or -1.
  int find_segment(int p, int lp, const uint64_t* own, bool sink, int* peer) {
    const uint64_t* top = tree_.root();
    const int skip = sink ? procs_[p].pprime : -1;
    // A small tree's all-except-one column is a few ORs, less than one miss costs (with small
    // round times, rounds of |G| near 15 make up most of the run).
    if (tree_.leaves() <= kSmallTree) return find_segment_by_column(p, lp, own, sink, peer);
    int misses = 0;
    int w0 = 0;
    if (!sink) {
      w0 = procs_[p].first_word;
      while (w0 < nw() && !own[w0]) ++w0;
      procs_[p].first_word = w0;
    }
    for (int w = w0; w < nw(); ++w) {
      uint64_t x = sink ? top[w] : top[w] & own[w];
      while (x) {
        const int s = w * 64 + __builtin_ctzll(x);
        x &= x - 1;
        if (s == skip) continue;
        if ((*peer = holder(s)) >= 0) return s;
        if (++misses == kLazyMisses) return find_segment_by_column(p, lp, own, sink, peer);
      }
    }
    return -1;
  }
  int find_segment_by_column(int p, int lp, const uint64_t* own, bool sink, int* peer) {
    uint64_t* col = col_.data();
    tree_.template all_except_one<S>(lp, col);
    if (sink && procs_[p].pprime >= 0) clear_bit(col, procs_[p].pprime);
    const int seg = Col::first_common(col, sink ? nullptr : own, W_);
    if (seg >= 0) *peer = holder(seg);
    return seg;
  }
  static constexpr int kLazyMisses = 1;
  static constexpr int kSmallTree = 32;

  const Instance& in_;
  const Clock clk_;
  const int P_, N_, W_;
  BitColumnTree tree_;
  std::vector<uint64_t> state_;  // the real columns ("saved copies" of Sect. 5.4.4)
  // What a transfer reads and writes of a process, in one cache line.
  struct Proc {
    int leaf = -1;    // its leaf in this round's tree
    int pprime = -1;  // the segment it holds in P' this round, or -1 (Sect. 4.2)
    int held = 0;     // segments in state A/P or P': 0 = done (line 10's test)
    // No segment below this word is held: segments are handed on roughly in ascending order, so
    // the low words of a column empty first and a search starts past them.
    int first_word = 0;
    int pos = 0;  // position in fractional-arrival order (holder_rows.hpp); its column's index
  };
  std::vector<uint64_t> col_;
  HolderRows rows_;  // the peer query, by segment (holder_rows.hpp)
  std::vector<Proc> procs_;
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
