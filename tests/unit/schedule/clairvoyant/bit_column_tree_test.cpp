// The segment tree over bit columns (Sect. 5.4) against a brute-force model: random rebuilds with
// fewer leaves than the capacity, column clears and bit clears, then Listing 3 and the root node
// compared with direct scans. Strides of 1 to 16 words: the 128-bit and (where the CPU has it)
// 256-bit path updates.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "schedule/clairvoyant/bit_column_tree.hpp"

namespace papcoll::clairvoyant {
namespace {

TEST(BitColumnTree, MatchesBruteForce) {
  std::mt19937_64 rng(3);
  for (int capacity : {1, 2, 3, 7, 8, 33, 64}) {
    for (int bits : {1, 5, 64, 65, 130, 300, 513, 1000}) {
      BitColumnTree t(capacity, bits);
      const int S = stride_words(bits);
      std::vector<std::vector<uint64_t>> model(static_cast<size_t>(capacity),
                                               std::vector<uint64_t>(static_cast<size_t>(S), 0));
      auto bit = [&](int l, int b) { return (model[l][b >> 6] >> (b & 63)) & 1u; };
      int leaves = capacity;
      for (int step = 0; step < 60; ++step) {
        switch (rng() % 4) {
          case 0: {  // a new round: some number of leaves, all written, one rebuild
            leaves = 1 + static_cast<int>(rng() % static_cast<uint64_t>(capacity));
            t.reset(leaves);
            for (int k = 0; k < leaves; ++k) {
              for (int b = 0; b < bits; ++b)
                if (rng() % 5 == 0)
                  model[k][b >> 6] |= uint64_t{1} << (b & 63);
                else
                  model[k][b >> 6] &= ~(uint64_t{1} << (b & 63));
              t.set_leaf(k, model[k].data());
            }
            t.build();
            break;
          }
          case 1: break;
          case 2: {
            const int l = static_cast<int>(rng() % static_cast<uint64_t>(leaves));
            t.clear_leaf_and_update(l);  // the leaf is model[l] itself: detach, then change
            std::fill(model[l].begin(), model[l].end(), 0);
            break;
          }
          default: {
            const int l = static_cast<int>(rng() % static_cast<uint64_t>(leaves));
            const int b = static_cast<int>(rng() % static_cast<uint64_t>(bits));
            model[l][b >> 6] &= ~(uint64_t{1} << (b & 63));
            t.clear_bit(l, b);
          }
        }
        const int l = static_cast<int>(rng() % static_cast<uint64_t>(leaves));
        std::vector<uint64_t> out(static_cast<size_t>(S));
        t.all_except_one(l, out.data());
        for (int b = 0; b < bits; ++b) {
          bool any_other = false, any = false;
          for (int k = 0; k < leaves; ++k) {
            if (k != l) any_other = any_other || bit(k, b);
            any = any || bit(k, b);
          }
          ASSERT_EQ(((out[b >> 6] >> (b & 63)) & 1u) != 0, any_other) << leaves << " " << bits;
          ASSERT_EQ(((t.root()[b >> 6] >> (b & 63)) & 1u) != 0, any) << leaves << " " << bits;
        }
      }
    }
  }
}

}  // namespace
}  // namespace papcoll::clairvoyant
