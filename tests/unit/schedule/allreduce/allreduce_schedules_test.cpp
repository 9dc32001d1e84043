// Every all-reduce generator verifies symbolically for p = 1..64, many block counts and random
// arrival patterns; the imbalance-aware ones reduce to their baselines for equal arrivals.
#include <gtest/gtest.h>

#include <algorithm>

#include <random>

#include "schedule/registry.hpp"
#include "test_schedules.hpp"
#include "verify/verifier.hpp"

namespace papcoll {
namespace {

bool same_steps(const Schedule& x, const Schedule& y) {
  return x.p == y.p && x.blocks == y.blocks && canonical(x).ranks == canonical(y).ranks;
}

class AllreduceGenerators : public ::testing::TestWithParam<const AlgorithmInfo*> {};

TEST_P(AllreduceGenerators, VerifyForEveryPAndDefaultBlocks) {
  const AlgorithmInfo& info = *GetParam();
  std::mt19937_64 rng(42);
  for (int p = 1; p <= 64; ++p) {
    GeneratorInput in;
    in.p = p;
    in.blocks = default_blocks_for(info, p);
    in.bytes = 4.0 * 1024 * 1024;
    const VerifyResult v = verify_schedule(generate_schedule(info, in));
    ASSERT_TRUE(v.ok) << info.name << " p=" << p << ": " << v.error;
    for (int k = 0; k < 4; ++k) {
      in.arrivals = random_arrivals(rng, p, block_round_time(in));
      const VerifyResult w = verify_schedule(generate_schedule(info, in));
      ASSERT_TRUE(w.ok) << info.name << " p=" << p << " random arrivals: " << w.error;
    }
  }
}

TEST_P(AllreduceGenerators, VerifyForManyBlockCounts) {
  const AlgorithmInfo& info = *GetParam();
  std::mt19937_64 rng(7);
  for (int p : {1, 2, 3, 5, 7, 8, 12, 16, 17}) {
    for (int blocks : {1, 2, 3, p - 1, p, p + 1, 2 * p + 3, 64}) {
      if (blocks < 1) continue;
      GeneratorInput in;
      in.p = p;
      in.blocks = blocks;
      in.bytes = 1 << 20;
      in.arrivals = random_arrivals(rng, p, block_round_time(in));
      const VerifyResult v = verify_schedule(generate_schedule(info, in));
      ASSERT_TRUE(v.ok) << info.name << " p=" << p << " blocks=" << blocks << ": " << v.error;
    }
  }
}

TEST_P(AllreduceGenerators, DeterministicForIdenticalInput) {
  const AlgorithmInfo& info = *GetParam();
  std::mt19937_64 rng(3);
  GeneratorInput in;
  in.p = 13;
  in.blocks = 13;
  in.bytes = 1 << 22;
  in.arrivals = random_arrivals(rng, 13, block_round_time(in));
  EXPECT_TRUE(same_steps(generate_schedule(info, in), generate_schedule(info, in)));
}

INSTANTIATE_TEST_SUITE_P(All, AllreduceGenerators,
                         ::testing::ValuesIn(algorithms_for(Collective::allreduce)),
                         [](const auto& info) {
                           std::string n = info.param->name;
                           for (char& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

TEST(ImbalanceAware, EqualArrivalsGiveTheBaseline) {
  for (int p = 1; p <= 33; ++p) {
    GeneratorInput in;
    in.p = p;
    in.blocks = p;
    in.arrivals.assign(static_cast<size_t>(p), 0.25);
    EXPECT_TRUE(same_steps(generate_schedule(*find_algorithm(Collective::allreduce, "prr"), in),
                           generate_schedule(*find_algorithm(Collective::allreduce, "ring"), in)))
        << "prr != ring at p=" << p;
    EXPECT_TRUE(same_steps(generate_schedule(*find_algorithm(Collective::allreduce, "slt"), in),
                           generate_schedule(*find_algorithm(Collective::allreduce, "linear"), in)))
        << "slt != linear at p=" << p;
  }
}

TEST(ImbalanceAware, ArrivalOrderBreaksTiesByRank) {
  EXPECT_EQ(arrival_order(4, {1.0, 0.5, 1.0, 0.5}), (std::vector<int>{1, 3, 0, 2}));
  EXPECT_EQ(arrival_order(3, {}), (std::vector<int>{0, 1, 2}));
}

// From 256 ranks the order comes from merging a few ascending runs or a radix sort of the times'
// bits: the same order as sorting (time, rank) pairs, for every kind of pattern (ties, negative
// times, -0.0 and 0.0, huge and tiny values, one late rank, a few runs).
TEST(ImbalanceAware, ArrivalOrderAtScaleIsTheSortedOrder) {
  std::mt19937_64 rng(7);
  auto sorted_order = [](const std::vector<double>& a) {
    std::vector<std::pair<double, int>> k;
    for (int r = 0; r < static_cast<int>(a.size()); ++r) k.push_back({a[r], r});
    std::sort(k.begin(), k.end());
    std::vector<int> o;
    for (const auto& [t, r] : k) o.push_back(r);
    return o;
  };
  for (int p : {255, 256, 257, 1000, 4096}) {
    for (int kind = 0; kind < 8; ++kind) {
      std::vector<double> a(static_cast<size_t>(p), 0.0);
      for (int r = 0; r < p; ++r) {
        switch (kind) {
          case 0: a[r] = std::uniform_real_distribution<double>(0, 1e-3)(rng); break;
          case 1: a[r] = static_cast<double>(rng() % 5) * 1e-4; break;  // many ties
          case 2: a[r] = std::uniform_real_distribution<double>(-1, 1)(rng); break;
          case 3: a[r] = r % 3 == 0 ? -0.0 : (r % 3 == 1 ? 0.0 : -1e-300); break;
          case 4: a[r] = r == p / 3 ? 0.02 : 0.0; break;  // one late
          case 5: a[r] = r % 2 ? 1e300 : 1e-300; break;
          case 6: a[r] = static_cast<double>(r % (p / 5)) * 1e-5; break;  // a few ascending runs
          case 7: a[r] = r < p / 2 ? 1e-3 : 0.0; break;  // two runs, the second wholly earlier
        }
      }
      EXPECT_EQ(arrival_order(p, a), sorted_order(a)) << "p=" << p << " kind=" << kind;
    }
  }
}

TEST(ImbalanceAware, HugeAndTinyDelaysStayCheap) {
  GeneratorInput in;
  in.p = 16;
  in.blocks = 16;
  in.arrivals.assign(16, 0.0);
  in.arrivals[5] = 1e300;
  const auto* prr = find_algorithm(Collective::allreduce, "prr");
  EXPECT_TRUE(verify_schedule(generate_schedule(*prr, in)).ok);
  in.arrivals[5] = 1e-300;
  EXPECT_TRUE(verify_schedule(generate_schedule(*prr, in)).ok);
}

}  // namespace
}  // namespace papcoll
