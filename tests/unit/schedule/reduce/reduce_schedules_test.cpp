// Every reduce generator verifies symbolically (the root ends with every block holding all p
// contributions exactly once) for p = 1..64, random arrival patterns, every root of small p, more
// blocks than ranks and a single block.
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <string>

#include "schedule/registry.hpp"
#include "test_schedules.hpp"
#include "verify/port_check.hpp"
#include "verify/verifier.hpp"

namespace papcoll {
namespace {

::testing::AssertionResult verifies(const AlgorithmInfo& info, const GeneratorInput& in) {
  const Schedule s = generate_schedule(info, in);
  VerifyResult v = verify_schedule(s);
  if (v.ok && std::string(info.name) == "clairvoyant") v = verify_single_port(s);
  if (v.ok && (s.collective != Collective::reduce || s.root != (in.root < 0 ? 0 : in.root)))
    v = {false, "wrong collective or root in the schedule"};
  if (v.ok) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << info.name << " p=" << in.p << " blocks=" << in.blocks
                                       << " root=" << in.root << ": " << v.error;
}

class ReduceGenerators : public ::testing::TestWithParam<const AlgorithmInfo*> {};

TEST_P(ReduceGenerators, VerifyForEveryPWithRandomArrivals) {
  const AlgorithmInfo& info = *GetParam();
  std::mt19937_64 rng(42);
  for (int p = 1; p <= 64; ++p) {
    GeneratorInput in;
    in.p = p;
    in.blocks = default_blocks_for(info, p);
    in.root = static_cast<int>(rng() % static_cast<uint64_t>(p));
    in.bytes = 4.0 * 1024 * 1024;
    ASSERT_TRUE(verifies(info, in));
    for (int k = 0; k < 3; ++k) {
      in.arrivals = random_arrivals(rng, p, block_round_time(in));
      ASSERT_TRUE(verifies(info, in));
    }
  }
}

TEST_P(ReduceGenerators, EveryRootOfSmallP) {
  const AlgorithmInfo& info = *GetParam();
  std::mt19937_64 rng(5);
  for (int p = 1; p <= 12; ++p)
    for (int root = 0; root < p; ++root)
      for (int blocks : {1, 2, p, 2 * p + 3}) {
        GeneratorInput in;
        in.p = p;
        in.blocks = blocks;
        in.root = root;
        in.round_time = 1.0;
        ASSERT_TRUE(verifies(info, in));
        in.arrivals = random_arrivals(rng, p, 1.0);
        ASSERT_TRUE(verifies(info, in));
      }
}

TEST_P(ReduceGenerators, MoreBlocksThanRanksAndOneBlock) {
  const AlgorithmInfo& info = *GetParam();
  std::mt19937_64 rng(9);
  for (int p : {2, 3, 5, 7, 11, 13, 16, 17, 23, 31, 33}) {
    for (int blocks : {1, 3 * p + 1}) {
      GeneratorInput in;
      in.p = p;
      in.blocks = blocks;
      in.root = p - 1;
      in.round_time = 0.25;
      in.arrivals = random_arrivals(rng, p, 0.25);
      ASSERT_TRUE(verifies(info, in));
    }
  }
}

TEST_P(ReduceGenerators, RootOutOfRangeIsRefused) {
  GeneratorInput in;
  in.p = 4;
  in.blocks = 4;
  in.root = 4;
  EXPECT_THROW(generate_schedule(*GetParam(), in), std::invalid_argument);
}

std::string reduce_param_name(const ::testing::TestParamInfo<const AlgorithmInfo*>& i) {
  std::string n = i.param->name;
  for (char& c : n)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(All, ReduceGenerators,
                         ::testing::ValuesIn(algorithms_for(Collective::reduce)),
                         reduce_param_name);

TEST(ReduceRegistry, HasEveryReduceAlgorithm) {
  for (const char* name : {"clairvoyant", "binomial", "rabenseifner", "radix-k", "ring", "linear"})
    EXPECT_NE(find_algorithm(Collective::reduce, name), nullptr) << name;
  const AlgorithmInfo* c = find_algorithm(Collective::reduce, "clairvoyant");
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(c->uses_arrivals);
  // Names are per collective: the all-reduce ring is still there.
  EXPECT_NE(find_algorithm(Collective::allreduce, "ring"), nullptr);
  EXPECT_NE(find_algorithm(Collective::allreduce, "ring"),
            find_algorithm(Collective::reduce, "ring"));
}

TEST(ReduceBaselines, BinomialAndLinearRoundCounts) {
  GeneratorInput in;
  in.p = 13;
  in.blocks = 1;
  in.root = 5;
  int64_t last = -1;
  for (const RankSchedule& r :
       generate_schedule(*find_algorithm(Collective::reduce, "binomial"), in).ranks)
    for (const Step& s : r.steps) last = std::max(last, s.round);
  EXPECT_EQ(last, 3);  // ceil(log2 13) rounds: 0..3
  last = -1;
  for (const RankSchedule& r :
       generate_schedule(*find_algorithm(Collective::reduce, "linear"), in).ranks)
    for (const Step& s : r.steps) last = std::max(last, s.round);
  EXPECT_EQ(last, 11);  // p - 1 messages into the root, one per round
}

}  // namespace
}  // namespace papcoll
