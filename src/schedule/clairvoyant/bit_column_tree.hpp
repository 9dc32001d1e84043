// The segment tree of Sect. 5.4 over bit-packed columns: leaf k holds one process's column of N
// state bits (1 = P, 0 = E; Sect. 5.3), every internal node the bitwise OR of its two children, so a
// node tells which segments some leaf below it holds. Columns are stored as 64-bit words, so an OR of
// two columns is N/64 word operations, done in 128-bit vectors (the paper's N/SIMD;
// bit_columns.hpp), and "first set bit" is a count of trailing zeros (Sect. 5.4.2).
//
// Layout as in the paper (Sect. 5.4): with m the smallest power of two >= the number of leaves, node
// 1 is the root, node i has children 2i and 2i+1 and parent i/2, and leaf k is node m + k; padding
// leaves stay zero. Columns are stride_words(N) words apart from a 64-byte boundary, so none
// straddles a cache line ("enforcing data alignment required by used SIMD instruction set").
// The hot operations are templates on the stride S (bit_columns.hpp; 0 = run-time stride).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "schedule/clairvoyant/bit_columns.hpp"

namespace papcoll::clairvoyant {

class BitColumnTree {
 public:
  BitColumnTree(int leaves, int bits);
  BitColumnTree(const BitColumnTree&) = delete;
  BitColumnTree& operator=(const BitColumnTree&) = delete;

  int stride() const { return stride_; }
  int leaves() const { return leaves_; }
  // Bits of the 2m columns (without the 64-byte alignment slack).
  size_t allocated_bits() const { return 2 * static_cast<size_t>(m_) * stride_ * 64; }
  const uint64_t* leaf(int k) const { return node<0>(m_ + k); }
  const uint64_t* root() const { return node<0>(1); }

  // Leaf contents; call rebuild() for the changed leaves afterwards.
  template <int S = 0>
  void set_leaf(int leaf, const uint64_t* column) {
    Columns<S>::copy(node<S>(m_ + leaf), column, stride_);
  }
  template <int S = 0>
  void clear_leaf(int leaf) {
    Columns<S>::zero(node<S>(m_ + leaf), stride_);
  }

  // Batch update (Sect. 5.4.4): recomputes the ancestors of the given leaves, each at most once,
  // not climbing past a node that did not change. `dirty` must be sorted ascending, unique.
  template <int S = 0>
  void rebuild(const std::vector<int>& dirty) {
    int n = 0;
    for (int k : dirty) cur_[n++] = m_ + k;
    while (n > 0 && cur_[0] > 1) {
      int next = 0, last = -1;
      for (int i = 0; i < n; ++i) {
        const int parent = cur_[i] >> 1;
        if (parent == last) continue;
        last = parent;
        if (recompute<S>(parent)) cur_[next++] = parent;  // next <= i: in place
      }
      n = next;
    }
  }
  // Zeroes a leaf and fixes its ancestors (CLEAR(M, p) of Sect. 5.4.1: disabling a process that
  // has sent). Going up, `gone` = the bits no longer held below the current node: the leaf's old
  // bits minus each sibling's; a node loses exactly those, and the climb stops when none are left.
  // The path's addresses do not depend on the data, so the loads of all levels can overlap.
  template <int S = 0>
  void clear_leaf_and_update(int leaf) {
    Columns<S>::clear_up(base_, m_ + leaf, static_cast<size_t>(S ? S : stride_), stride_);
  }
  // Clears one bit of a leaf (CLEAR(M, p, s)) and fixes its ancestors bit-wise, stopping where a
  // sibling still has the bit: O(log m) single-bit operations.
  template <int S = 0>
  void clear_bit(int leaf, int bit) {
    const int w = bit >> 6;
    const uint64_t mask = uint64_t{1} << (bit & 63);
    int i = m_ + leaf;
    if (!(node<S>(i)[w] & mask)) return;  // nothing changes
    node<S>(i)[w] &= ~mask;
    for (; i > 1 && !(node<S>(i ^ 1)[w] & mask); i >>= 1) node<S>(i >> 1)[w] &= ~mask;
  }

  // Listing 3: out = OR of every leaf except `leaf`, from the siblings along its path to the root.
  // OR is commutative, so Listing 3's left/right distinction is not needed.
  template <int S = 0>
  void all_except_one(int leaf, uint64_t* out) const {
    const uint64_t* sibs[32];
    int n = 0;
    for (int i = m_ + leaf; i > 1; i >>= 1) sibs[n++] = node<S>(i ^ 1);
    Columns<S>::or_of(out, sibs, n, stride_);
  }
  // Listing 4: the leftmost leaf with `bit` set, or -1.
  template <int S = 0>
  int find_leftmost(int bit) const {
    return has<S>(1, bit) ? descend<S>(1, bit) : -1;
  }
  // Listing 5: the leftmost leaf right of `from` with `bit` set, or -1.
  template <int S = 0>
  int find_leftmost_from(int from, int bit) const {
    for (int i = m_ + from; i > 1; i >>= 1)
      if (!(i & 1) && has<S>(i + 1, bit)) return descend<S>(i + 1, bit);
    return -1;
  }

 private:
  template <int S>
  const uint64_t* node(int i) const {
    return base_ + static_cast<size_t>(i) * static_cast<size_t>(S ? S : stride_);
  }
  template <int S>
  uint64_t* node(int i) {
    return base_ + static_cast<size_t>(i) * static_cast<size_t>(S ? S : stride_);
  }
  template <int S>
  bool has(int i, int bit) const {
    return (node<S>(i)[bit >> 6] >> (bit & 63)) & 1u;
  }
  // Node i = OR of its children; returns whether it changed.
  template <int S>
  bool recompute(int i) {
    return Columns<S>::or_changed(node<S>(i), node<S>(2 * i), node<S>(2 * i + 1), stride_);
  }
  // Listing 4's loop below node i, which has the bit: go left whenever the left child has it.
  // Two levels per step: the left child and both grandchildren that may come next are loaded
  // together (their addresses are known in advance), which halves the chain of dependent loads.
  template <int S>
  int descend(int i, int bit) const {
    while (2 * i < m_) {
      const bool l = has<S>(2 * i, bit), ll = has<S>(4 * i, bit), rl = has<S>(4 * i + 2, bit);
      i = l ? (ll ? 4 * i : 4 * i + 1) : (rl ? 4 * i + 2 : 4 * i + 3);
    }
    if (i < m_) i = 2 * i + (has<S>(2 * i, bit) ? 0 : 1);
    return i - m_;
  }

  int leaves_ = 1;
  int m_ = 1;       // leaves rounded up to a power of two
  int stride_ = 1;  // stride_words(N)
  std::vector<uint64_t> storage_;
  uint64_t* base_ = nullptr;  // node 0 (unused), 64-byte aligned
  std::vector<int> cur_;      // rebuild's work list
};

}  // namespace papcoll::clairvoyant
