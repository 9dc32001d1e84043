// Allgather(v) generators through the symbolic verifier: circulant (Träff's Algorithm 2), ring and
// Bruck, with B = p*n (n blocks per rank, global id origin*n + i) and B not a multiple of p.
#include <gtest/gtest.h>

#include "schedule/allgatherv_generators.hpp"
#include "schedule/registry.hpp"
#include "verify/verifier.hpp"

namespace papcoll {
namespace {

Schedule allgatherv_schedule(const char* name, int p, int blocks) {
  GeneratorInput in;
  in.p = p;
  in.blocks = blocks;
  const AlgorithmInfo* a = find_algorithm(Collective::allgatherv, name);
  EXPECT_NE(a, nullptr) << name;
  return generate_schedule(*a, in);
}

TEST(AllgathervOwnership, MatchesTheVerifier) {
  for (int p = 1; p <= 12; ++p)
    for (int blocks = 1; blocks <= 40; ++blocks)
      for (int o = 0; o < p; ++o)
        for (int b : origin_blocks(blocks, p, o).ids()) EXPECT_EQ(b * p / blocks, o);
  EXPECT_EQ(origin_blocks(12, 4, 2).ids(), (std::vector<int>{6, 7, 8}));
}

TEST(CirculantAllgatherv, VerifiesWithNBlocksPerRank) {
  for (int p = 1; p <= 33; ++p)
    for (int n = 1; n <= 9; ++n) {
      const Schedule s = allgatherv_schedule("circulant", p, p * n);
      const VerifyResult v = verify_schedule(s);
      ASSERT_TRUE(v.ok) << "p=" << p << " n=" << n << ": " << v.error;
      int q = 0;
      while ((1 << q) < p) ++q;
      int64_t last = -1;
      for (const RankSchedule& r : s.ranks)
        if (!r.steps.empty()) last = std::max(last, r.steps.back().round);
      EXPECT_EQ(last + 1, p == 1 ? 0 : n - 1 + q);
    }
}

TEST(CirculantAllgatherv, VerifiesWithUnevenOwnership) {
  for (int p : {2, 3, 5, 7, 12, 17})
    for (int blocks : {1, 2, p - 1, p + 1, 2 * p + 3, 5 * p - 1}) {
      if (blocks < 1) continue;
      const VerifyResult v = verify_schedule(allgatherv_schedule("circulant", p, blocks));
      ASSERT_TRUE(v.ok) << "p=" << p << " blocks=" << blocks << ": " << v.error;
    }
}

TEST(AllgathervBaselines, Verify) {
  for (const char* name : {"ring", "bruck", "linear"})
    for (int p = 1; p <= 40; ++p)
      for (int blocks : {1, p, 2 * p, 3 * p + 1}) {
        if (blocks < 1) continue;
        const VerifyResult v = verify_schedule(allgatherv_schedule(name, p, blocks));
        ASSERT_TRUE(v.ok) << name << " p=" << p << " blocks=" << blocks << ": " << v.error;
      }
}

}  // namespace
}  // namespace papcoll
