// The segment tree over bit columns (Sect. 5.4) against a brute-force model: random leaf writes,
// column clears and bit clears, then Listings 3, 4 and 5 compared with direct scans.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "schedule/clairvoyant/bit_column_tree.hpp"

namespace papcoll::clairvoyant {
namespace {

TEST(BitColumnTree, MatchesBruteForce) {
  std::mt19937_64 rng(3);
  for (int leaves : {1, 2, 3, 7, 8, 33, 64}) {
    for (int bits : {1, 5, 64, 65, 130, 300, 513, 1000}) {
      BitColumnTree t(leaves, bits);
      const int S = stride_words(bits);
      std::vector<std::vector<uint64_t>> model(static_cast<size_t>(leaves),
                                               std::vector<uint64_t>(static_cast<size_t>(S), 0));
      auto bit = [&](int l, int b) { return (model[l][b >> 6] >> (b & 63)) & 1u; };
      for (int step = 0; step < 60; ++step) {
        const int l = static_cast<int>(rng() % static_cast<uint64_t>(leaves));
        switch (rng() % 4) {
          case 0:
          case 1: {  // batch of leaf writes, then one rebuild
            std::vector<int> dirty;
            for (int k = 0; k < leaves; ++k)
              if (rng() % 3 == 0) {
                for (int b = 0; b < bits; ++b)
                  if (rng() % 5 == 0) model[k][b >> 6] |= uint64_t{1} << (b & 63);
                  else model[k][b >> 6] &= ~(uint64_t{1} << (b & 63));
                t.set_leaf(k, model[k].data());
                dirty.push_back(k);
              }
            t.rebuild(dirty);
            break;
          }
          case 2:
            std::fill(model[l].begin(), model[l].end(), 0);
            t.clear_leaf_and_update(l);
            break;
          default: {
            const int b = static_cast<int>(rng() % static_cast<uint64_t>(bits));
            model[l][b >> 6] &= ~(uint64_t{1} << (b & 63));
            t.clear_bit(l, b);
          }
        }
        std::vector<uint64_t> out(static_cast<size_t>(S));
        t.all_except_one(l, out.data());
        for (int b = 0; b < bits; ++b) {
          bool any = false;
          int leftmost = -1, right_of_l = -1;
          for (int k = 0; k < leaves; ++k) {
            if (k != l) any = any || bit(k, b);
            if (bit(k, b) && leftmost < 0) leftmost = k;
            if (k > l && bit(k, b) && right_of_l < 0) right_of_l = k;
          }
          ASSERT_EQ(((out[b >> 6] >> (b & 63)) & 1u) != 0, any) << leaves << " " << bits;
          ASSERT_EQ(t.find_leftmost(b), leftmost);
          ASSERT_EQ(t.find_leftmost_from(l, b), right_of_l);
        }
      }
    }
  }
}

}  // namespace
}  // namespace papcoll::clairvoyant
