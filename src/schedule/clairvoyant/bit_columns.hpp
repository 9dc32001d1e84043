// Word-parallel operations on bit columns (Sect. 5.4.2: "using SIMD instructions we can calculate
// up to 256 or 512 logical sums of single bits in one CPU instruction").
//
// A column of N bits is stored in S 64-bit words, S = stride_words(N): 1, 2, 4 or 8 words, or a
// multiple of 8; the words past N are always zero. Templates take S when it is known at compile
// time (S <= 8, i.e. N <= 512) and 0 otherwise (then the run-time `stride`, any value).
//
// The vectors are GCC/Clang generic 128-bit vectors (SSE2 on every x86-64, NEON on AArch64).
// Loads and stores go through memcpy (unaligned moves, no aliasing problems); vectors are never
// passed by value, whose ABI depends on the target. The loops over the NV vectors of a block are
// unrolled explicitly: -O2 keeps them as loops, and at P = N = 512 their counters were a tenth
// of all instructions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace papcoll::clairvoyant {

constexpr int stride_words(int bits) {
  const int w = (bits + 63) / 64;
  return w <= 1 ? 1 : w <= 2 ? 2 : w <= 4 ? 4 : (w + 7) / 8 * 8;
}

typedef uint64_t u64x2 __attribute__((vector_size(16)));

#if defined(__x86_64__) && defined(__GNUC__)
#define PAPCOLL_CLV_AVX2 1
// Columns::clear_up in 256-bit vectors for columns of 4 words or a multiple of 8 (N > 128), on CPUs
// with AVX2: half the vector instructions of the 128-bit loop, in the operation that runs once
// per transfer over log2 |G| levels (a quarter of Clairvoyant(segtree)'s time at P = N = 512).
// Compiled for AVX2 in its own file (bit_columns_avx2.cpp) and called only where the CPU reports
// it; everything else stays x86-64 baseline.
void clear_up_avx2(const uint64_t* sib0, uint64_t* base, int node, size_t step, int words);
inline bool cpu_has_avx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}
#endif

template <int S>
struct Columns {
  // A column is processed in blocks of B words, each block as NV vectors held in registers
  // (NV = 0: one plain word).
  static constexpr int B = S == 0 ? 8 : S;
  static constexpr int NV = B / 2;
  static int blocks(int stride) { return S == 0 ? stride / 8 : 1; }
  static int words(int stride) { return S == 0 ? stride : S; }
  // Words after the whole blocks (S = 0 with a stride that is no multiple of 8: plain words).
  static int tail(int stride) { return S == 0 ? stride / 8 * 8 : S; }

  // out = OR of the columns src[0..n).
  static void or_of(uint64_t* out, const uint64_t* const* src, int n, int stride) {
    for (int c = 0; c < blocks(stride); ++c) {
      if constexpr (NV == 0) {
        uint64_t acc = 0;
        for (int i = 0; i < n; ++i) acc |= src[i][c];
        out[c] = acc;
      } else {
        u64x2 acc[NV] = {};
        for (int i = 0; i < n; ++i)
#pragma GCC unroll 8
          for (int j = 0; j < NV; ++j) {
            u64x2 v;
            std::memcpy(&v, src[i] + c * B + 2 * j, sizeof v);
            acc[j] |= v;
          }
        std::memcpy(out + c * B, acc, sizeof acc);
      }
    }
    for (int w = tail(stride); w < words(stride); ++w) {
      uint64_t acc = 0;
      for (int i = 0; i < n; ++i) acc |= src[i][w];
      out[w] = acc;
    }
  }

  // out = 0.
  static void zero(uint64_t* out, int stride) {
    std::memset(out, 0, static_cast<size_t>(words(stride)) * sizeof(uint64_t));
  }

  // out = a | b.
  static void or2(uint64_t* out, const uint64_t* a, const uint64_t* b, int stride) {
    if constexpr (NV == 0) {
      for (int c = 0; c < blocks(stride); ++c) out[c] = a[c] | b[c];
    } else {
      for (int c = 0; c < blocks(stride); ++c)
#pragma GCC unroll 8
        for (int j = 0; j < NV; ++j) {
          const int o = c * B + 2 * j;
          u64x2 x, y;
          std::memcpy(&x, a + o, sizeof x);
          std::memcpy(&y, b + o, sizeof y);
          x |= y;
          std::memcpy(out + o, &x, sizeof x);
        }
    }
    for (int w = tail(stride); w < words(stride); ++w) out[w] = a[w] | b[w];
  }

  // CLEAR(M, p) for the leaf at node `node`, which now reads as all zero
  // (BitColumnTree::clear_leaf_and_update): its ancestors (at base + index * step) are recomputed
  // up to the root as the OR of the path so far and each sibling (`sib0` is the leaf's sibling,
  // the others are internal nodes), one load per level. No early stop: the climb nearly always
  // reaches the root anyway (a sender usually holds some segment nobody else in the round can
  // still send), and testing for it took another load and compare per level.
  static void clear_up(const uint64_t* sib0, uint64_t* base, int node, size_t step, int stride) {
#ifdef PAPCOLL_CLV_AVX2
    if ((words(stride) == 4 || words(stride) % 8 == 0) && cpu_has_avx2())
      return clear_up_avx2(sib0, base, node, step, words(stride));
#endif
    if constexpr (S != 0 && NV > 0) {
      u64x2 cur[NV] = {};
      const uint64_t* sib = sib0;
      for (int i = node; i > 1; i >>= 1) {
        uint64_t* parent = base + static_cast<size_t>(i >> 1) * step;
#pragma GCC unroll 8
        for (int j = 0; j < NV; ++j) {
          u64x2 v;
          std::memcpy(&v, sib + 2 * j, sizeof v);
          cur[j] |= v;
          std::memcpy(parent + 2 * j, &cur[j], sizeof v);
        }
        sib = base + static_cast<size_t>((i >> 1) ^ 1) * step;
      }
    } else {
      const int n = words(stride);
      uint64_t cur_small[8] = {};
      std::vector<uint64_t> cur_big;
      uint64_t* cur = cur_small;
      if (n > 8) {
        cur_big.assign(static_cast<size_t>(n), 0);
        cur = cur_big.data();
      }
      const uint64_t* sib = sib0;
      for (int i = node; i > 1; i >>= 1) {
        uint64_t* parent = base + static_cast<size_t>(i >> 1) * step;
        for (int w = 0; w < n; ++w) parent[w] = cur[w] |= sib[w];
        sib = base + static_cast<size_t>((i >> 1) ^ 1) * step;
      }
    }
  }

  // Index of the first bit set in a & b (b == nullptr: in a), or -1 (count trailing zeros).
  static int first_common(const uint64_t* a, const uint64_t* b, int stride) {
    for (int w = 0; w < words(stride); ++w)
      if (const uint64_t x = b ? a[w] & b[w] : a[w]) return w * 64 + __builtin_ctzll(x);
    return -1;
  }
};

}  // namespace papcoll::clairvoyant
