// The AVX2 form of Columns::clear_up (bit_columns.hpp). Only the functions marked target("avx2")
// use AVX2 instructions, and they are called only where the CPU has them.
#include "schedule/clairvoyant/bit_columns.hpp"

#include <cstdint>

#ifdef PAPCOLL_CLV_AVX2
namespace papcoll::clairvoyant {
namespace {

typedef uint64_t u64x4 __attribute__((vector_size(32)));

// V vectors (4 V words) of the column, from the leaf's parent to the root: parent = OR of the
// path so far and the sibling. Columns are STEP words apart (0: `step`, known only at run time);
// the words of a column are independent, so a wide column is done as several narrower ones.
// With a base aligned to two columns and a compile-time step of 4 or 8 words, node i^1 (the
// sibling) is the address of node i with one bit flipped: no multiplications.
template <int V, int STEP>
__attribute__((target("avx2"), always_inline)) inline void clear_up_words(const uint64_t* sib,
                                                                          uint64_t* base, int node,
                                                                          size_t step) {
  const size_t stride = STEP ? STEP : step;
  u64x4 cur[V] = {};
  for (int i = node >> 1; i >= 1; i >>= 1) {
    uint64_t* parent = base + static_cast<size_t>(i) * stride;
    for (int j = 0; j < V; ++j) {
      u64x4 v;
      std::memcpy(&v, sib + 4 * j, sizeof v);
      cur[j] |= v;
      std::memcpy(parent + 4 * j, &cur[j], sizeof v);
    }
    if constexpr (STEP != 0)
      sib = reinterpret_cast<const uint64_t*>(reinterpret_cast<uintptr_t>(parent) ^
                                              (STEP * sizeof(uint64_t)));
    else
      sib = base + static_cast<size_t>(i ^ 1) * stride;
  }
}

}  // namespace

__attribute__((target("avx2"))) void clear_up_avx2(const uint64_t* sib0, uint64_t* base, int node,
                                                   size_t step, int words) {
  const uintptr_t at = reinterpret_cast<uintptr_t>(base);
  if (words == 4)
    return step == 4 && at % 64 == 0 ? clear_up_words<1, 4>(sib0, base, node, step)
                                     : clear_up_words<1, 0>(sib0, base, node, step);
  if (words == 8 && step == 8 && at % 128 == 0) return clear_up_words<2, 8>(sib0, base, node, step);
  for (int w = 0; w < words; w += 8) clear_up_words<2, 0>(sib0 + w, base + w, node, step);
}

}  // namespace papcoll::clairvoyant
#endif
