// The circulant graph of Träff's round-optimal broadcast (arXiv 2312.11236, Sec. 2.2): q =
// ceil(log2 p) skips obtained by repeated halving of p, and the baseblock of every processor.
// Pure arithmetic, no allocation: every schedule routine of src/schedule/circulant/ starts here.
#pragma once

namespace papcoll::circulant {

// q <= kMaxQ keeps every per-processor array on the stack; p <= 2^29 keeps every sum below 2^31.
constexpr int kMaxQ = 29;
constexpr int kMaxP = 1 << kMaxQ;

struct Skips {
  int p = 1;
  int q = 0;
  // skip[0..q] with skip[q] = p and skip[0] = 1 (for p >= 2); skip[q+1] is a sentinel larger
  // than any sum the schedule computations form, so "R - skip[k+1]" is safe for k = q.
  int skip[kMaxQ + 2] = {};
};

// Algorithm 3: skip[q] = p, skip[k] = ceil(skip[k+1] / 2). Requires 1 <= p <= kMaxP.
Skips make_skips(int p);

// Algorithm 4: decompose r greedily from the largest skip down, taking skip[k] whenever the
// running sum plus skip[k] does not exceed r; the baseblock is the smallest skip index used. It is
// the block the root's round-k send (block k along skip[k]) carries to r over the canonical path.
// The root (r = 0, empty sequence) gets q by definition.
inline int baseblock(const Skips& s, int r) {
  int sum = 0;
  for (int k = s.q - 1; k >= 0; --k) {
    const int next = sum + s.skip[k];
    if (next == r) return k;
    if (next < r) sum = next;
  }
  return s.q;
}

}  // namespace papcoll::circulant
