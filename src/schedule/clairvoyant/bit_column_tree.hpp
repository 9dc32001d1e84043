// The segment tree of Sect. 5.4 over bit-packed columns: leaf k is one process's column of N
// state bits (1 = P, 0 = E; Sect. 5.3), every internal node the bitwise OR of its two children, so
// a node tells which segments some leaf below it holds. Columns are stored as 64-bit words, so an
// OR of two columns is N/64 word operations, done in 128-bit vectors, or 256-bit ones on CPUs with
// AVX2 (the paper's N/SIMD; bit_columns.hpp), and "first set bit" is a count of trailing zeros
// (Sect. 5.4.2). The tree answers which segments some other leaf holds (Listing 3, and the root
// node); who holds a given segment is answered by holder_rows.hpp instead of a descent (Listings
// 4 and 5): see there.
//
// Layout as in the paper (Sect. 5.4): with m the smallest power of two >= the number of leaves in
// use, node 1 is the root, node i has children 2i and 2i+1 and parent i/2, and leaf k is node m +
// k. The internal nodes 1..m-1 are stored here, sized once for `capacity` leaves; reset() picks the
// number of leaves in use, so a tree over few leaves is low. The leaves are not copied: a leaf is a
// pointer to its process's column in the caller's state (the paper's "saved copies" are then the
// columns themselves), or to an all-zero column for padding and for processes that have sent
// (clear_leaf_and_update). That halves the tree and keeps the hot data in fewer cache lines.
// Columns are stride_words(N) words apart from a 128-byte boundary, so none straddles a cache line
// ("enforcing data alignment required by used SIMD instruction set").
// The hot operations are templates on the stride S (bit_columns.hpp; 0 = run-time stride).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "schedule/clairvoyant/bit_columns.hpp"

namespace papcoll::clairvoyant {

class BitColumnTree {
 public:
  BitColumnTree(int capacity, int bits);
  BitColumnTree(const BitColumnTree&) = delete;
  BitColumnTree& operator=(const BitColumnTree&) = delete;

  int stride() const { return stride_; }
  int leaves() const { return leaves_; }
  // Bits of the internal nodes allocated for `capacity` leaves and of the zero column (without
  // the alignment slack); the leaves are the caller's.
  size_t allocated_bits() const { return (storage_.size() - kAlignSpare) * 64; }
  const uint64_t* leaf(int k) const { return leaf_[static_cast<size_t>(k)]; }
  const uint64_t* root() const { return child<0>(1); }

  // Uses leaves 0..leaves-1 from now on (1 <= leaves <= capacity); set them all, then build().
  void reset(int leaves);
  // Leaf `leaf` is the column at `column` (stride() words, kept alive and unchanged by the caller
  // except through clear_bit) until the next reset.
  void set_leaf(int leaf, const uint64_t* column) { leaf_[static_cast<size_t>(leaf)] = column; }
  // Batch rebuild (Sect. 5.4.4): computes every internal node once, bottom-up, after all leaves
  // were set. Only nodes with a leaf in use below them are computed: the padding leaves
  // (leaves()..m-1) are a suffix, so on each level the nodes over them are a suffix too, and they
  // must read as zero. They are zero already unless an earlier build (with the same m) computed
  // them, so only those are cleared. About |G| - 1 nodes instead of m - 1: with |G| spread over
  // (m/2, m] a quarter fewer ORs and cache lines. At P = N = 512 (uniform arrivals, |G| 225 on
  // average) cachegrind counts 10 % fewer L1 data misses for the whole run.
  template <int S = 0>
  void build() {
    const bool same_m = built_m_ == m_;
    for (int k = leaves_; k < (same_m ? built_leaves_ : m_); ++k)
      leaf_[static_cast<size_t>(k)] = zero_;
    int below = leaves_;  // nodes in use on the level below
    for (int first = m_ / 2, level = 0; first >= 1; first /= 2, ++level) {
      const int used = (below + 1) / 2;
      for (int i = first + used - 1; i >= first; --i)
        Columns<S>::or2(node<S>(i), child<S>(2 * i), child<S>(2 * i + 1), stride_);
      const int stale = same_m ? built_used_[level] : first;
      for (int i = first + used; i < first + stale; ++i) Columns<S>::zero(node<S>(i), stride_);
      built_used_[level] = used;
      below = used;
    }
    built_m_ = m_;
    built_leaves_ = leaves_;
  }
  // Takes a leaf out (its column reads as zero from now on) and fixes its ancestors (CLEAR(M, p)
  // of Sect. 5.4.1: disabling a process that has sent).
  template <int S = 0>
  void clear_leaf_and_update(int leaf) {
    leaf_[static_cast<size_t>(leaf)] = zero_;
    Columns<S>::clear_up(child<S>((m_ + leaf) ^ 1), base_, m_ + leaf,
                         static_cast<size_t>(S ? S : stride_), stride_);
  }
  // CLEAR(M, p, s): the caller has cleared bit `bit` of leaf `leaf`'s column; its ancestors lose
  // the bit up to the first whose sibling still has it: O(log m) single-bit operations. Nothing
  // to do for a leaf taken out (its process has sent this round).
  template <int S = 0>
  void clear_bit(int leaf, int bit) {
    if (m_ == 1 || leaf_[static_cast<size_t>(leaf)] == zero_) return;
    const int w = bit >> 6;
    const uint64_t mask = uint64_t{1} << (bit & 63);
    if (leaf_[static_cast<size_t>(leaf ^ 1)][w] & mask) return;
    for (int i = (m_ + leaf) >> 1; i > 1 && !(node<S>(i ^ 1)[w] & mask); i >>= 1)
      node<S>(i >> 1)[w] &= ~mask;
    node<S>((m_ + leaf) >> 1)[w] &= ~mask;
  }

  // Listing 3: out = OR of every leaf except `leaf`, from the siblings along its path to the root.
  // OR is commutative, so Listing 3's left/right distinction is not needed.
  template <int S = 0>
  void all_except_one(int leaf, uint64_t* out) const {
    const uint64_t* sibs[32];
    int n = 0;
    for (int i = m_ + leaf; i > 1; i >>= 1) sibs[n++] = child<S>(i ^ 1);
    Columns<S>::or_of(out, sibs, n, stride_);
  }

 private:
  // Internal node i (1 <= i < m).
  template <int S>
  const uint64_t* node(int i) const {
    return base_ + static_cast<size_t>(i) * static_cast<size_t>(S ? S : stride_);
  }
  template <int S>
  uint64_t* node(int i) {
    return base_ + static_cast<size_t>(i) * static_cast<size_t>(S ? S : stride_);
  }
  // Any node i >= 1: internal, or leaf i - m.
  template <int S>
  const uint64_t* child(int i) const {
    return i < m_ ? node<S>(i) : leaf_[static_cast<size_t>(i - m_)];
  }
  static constexpr size_t kAlignSpare = 15;  // words, to start node 0 on a 128-byte boundary
  int capacity_ = 1;
  int leaves_ = 1;
  // What the last build() computed: m, leaves, and per level (bottom internal level first) the
  // nodes with a leaf in use below; nodes past them on every level are zero.
  int built_m_ = 0;
  int built_leaves_ = 0;
  int built_used_[32] = {};
  int m_ = 1;                          // leaves rounded up to a power of two
  int stride_ = 1;                     // stride_words(N)
  std::vector<uint64_t> storage_;      // internal nodes of the largest tree, then the zero column
  uint64_t* base_ = nullptr;           // node 0 (unused), 128-byte aligned
  const uint64_t* zero_ = nullptr;     // an all-zero column
  std::vector<const uint64_t*> leaf_;  // the leaves' columns
};

}  // namespace papcoll::clairvoyant
