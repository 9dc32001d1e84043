// Word-parallel operations on bit columns (Sect. 5.4.2: "using SIMD instructions we can calculate
// up to 256 or 512 logical sums of single bits in one CPU instruction").
//
// A column of N bits is stored in S 64-bit words, S = stride_words(N): 1, 2, 4 or 8 words, or a
// multiple of 8; the words past N are always zero. Templates take S when it is known at compile
// time (S <= 8, i.e. N <= 512) and 0 otherwise (then the run-time `stride`, any value).
//
// The vectors are GCC/Clang generic 128-bit vectors (SSE2 on every x86-64, NEON on AArch64).
// Loads and stores go through memcpy (unaligned moves, no aliasing problems); vectors are never
// passed by value, whose ABI depends on the target.
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

  static void copy(uint64_t* dst, const uint64_t* src, int stride) {
    std::memcpy(dst, src, sizeof(uint64_t) * static_cast<size_t>(words(stride)));
  }
  static void zero(uint64_t* dst, int stride) {
    std::memset(dst, 0, sizeof(uint64_t) * static_cast<size_t>(words(stride)));
  }
  static bool empty(const uint64_t* x, int stride) {
    uint64_t acc = 0;
    for (int w = 0; w < words(stride); ++w) acc |= x[w];
    return acc == 0;
  }

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

  // out = a | b; returns whether out changed.
  static bool or_changed(uint64_t* out, const uint64_t* a, const uint64_t* b, int stride) {
    uint64_t changed = 0;
    if constexpr (NV == 0) {
      for (int c = 0; c < blocks(stride); ++c) {
        const uint64_t v = a[c] | b[c];
        changed |= v ^ out[c];
        out[c] = v;
      }
    } else {
      u64x2 diff = {};
      for (int c = 0; c < blocks(stride); ++c)
        for (int j = 0; j < NV; ++j) {
          const int o = c * B + 2 * j;
          u64x2 x, y, old;
          std::memcpy(&x, a + o, sizeof x);
          std::memcpy(&y, b + o, sizeof y);
          std::memcpy(&old, out + o, sizeof old);
          x |= y;
          diff |= x ^ old;
          std::memcpy(out + o, &x, sizeof x);
        }
      changed = diff[0] | diff[1];
    }
    for (int w = tail(stride); w < words(stride); ++w) {
      const uint64_t v = a[w] | b[w];
      changed |= v ^ out[w];
      out[w] = v;
    }
    return changed != 0;
  }

  // Column `node` (at base + node * step) is zeroed and its ancestors lose the bits that no other
  // leaf below them holds (see BitColumnTree::clear_leaf_and_update).
  static void clear_up(uint64_t* base, int node, size_t step, int stride) {
    uint64_t* x = base + static_cast<size_t>(node) * step;
    if constexpr (S != 0 && NV > 0) {
      u64x2 gone[NV];
      std::memcpy(gone, x, sizeof gone);
      std::memset(x, 0, sizeof gone);
      for (int i = node; i > 1; i >>= 1) {
        const uint64_t* sib = base + static_cast<size_t>(i ^ 1) * step;
        uint64_t* parent = base + static_cast<size_t>(i >> 1) * step;
        u64x2 any = {};
        for (int j = 0; j < NV; ++j) {
          u64x2 s, p;
          std::memcpy(&s, sib + 2 * j, sizeof s);
          std::memcpy(&p, parent + 2 * j, sizeof p);
          gone[j] &= ~s;
          any |= gone[j];
          p &= ~gone[j];
          std::memcpy(parent + 2 * j, &p, sizeof p);
        }
        if (!(any[0] | any[1])) return;
      }
    } else {
      const int n = words(stride);
      uint64_t gone_small[8];
      std::vector<uint64_t> gone_big;
      uint64_t* gone = gone_small;
      if (n > 8) {
        gone_big.assign(x, x + n);
        gone = gone_big.data();
      } else {
        std::memcpy(gone, x, sizeof(uint64_t) * static_cast<size_t>(n));
      }
      std::memset(x, 0, sizeof(uint64_t) * static_cast<size_t>(n));
      for (int i = node; i > 1; i >>= 1) {
        const uint64_t* sib = base + static_cast<size_t>(i ^ 1) * step;
        uint64_t* parent = base + static_cast<size_t>(i >> 1) * step;
        uint64_t any = 0;
        for (int w = 0; w < n; ++w) {
          gone[w] &= ~sib[w];
          any |= gone[w];
          parent[w] &= ~gone[w];
        }
        if (!any) return;
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
