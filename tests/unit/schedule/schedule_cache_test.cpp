// The schedule cache's one bound for every communicator of the process and its admission rule
// (schedule/schedule_cache.hpp): least recently used entries of any cache go first; a key is
// cached on its second sighting, so keys that never repeat neither stay nor evict the ones that do.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "model/link_model.hpp"
#include "model/node_layout.hpp"
#include "schedule/schedule_cache.hpp"

namespace papcoll {
namespace {

// Keys of about 1 KiB: every entry counts 2 * 1 KiB plus its node, so the bytes are predictable.
std::string key(const char* what, int i) {
  return std::string(1000, 'k') + what + std::to_string(i);
}

ScheduleCache::Entry entry() { return {std::make_shared<const RankSchedule>(), nullptr, nullptr}; }

class ScheduleCacheBound : public ::testing::Test {
 protected:
  void TearDown() override {
    ScheduleCache::set_process_limit_for_testing(ScheduleCache::default_limit());
  }
};

TEST_F(ScheduleCacheBound, AdmitsAKeyOnItsSecondSighting) {
  ScheduleCache::set_process_limit_for_testing(int64_t{1} << 30);
  ScheduleCache c;
  std::shared_ptr<const RankSchedule> got;
  EXPECT_FALSE(c.find(key("a", 0), &got));
  EXPECT_FALSE(c.offer(key("a", 0), entry()));  // first sighting: remembered only
  EXPECT_FALSE(c.find(key("a", 0), &got));
  EXPECT_TRUE(c.offer(key("a", 0), entry()));  // second: cached
  EXPECT_TRUE(c.find(key("a", 0), &got));
  EXPECT_NE(got, nullptr);
  EXPECT_EQ(c.size(), 1u);
  // The same key of another communicator's cache is a first sighting there.
  ScheduleCache d;
  EXPECT_FALSE(d.offer(key("a", 0), entry()));
}

TEST_F(ScheduleCacheBound, OneBoundForEveryCacheOfTheProcess) {
  const int64_t limit = 40 * 1024;
  ScheduleCache::set_process_limit_for_testing(limit);
  ScheduleCache a, b;
  for (int i = 0; i < 15; ++i) a.insert(key("a", i), entry());
  EXPECT_LE(ScheduleCache::process_bytes(), limit);
  const size_t a_before = a.size();
  EXPECT_GT(a_before, 5u);
  // b's entries push out a's least recently used ones: the bound is the process's.
  std::shared_ptr<const RankSchedule> got;
  ASSERT_TRUE(a.find(key("a", 14), &got));  // a's newest, now also its most recently used
  for (int i = 0; i < 10; ++i) b.insert(key("b", i), entry());
  EXPECT_LE(ScheduleCache::process_bytes(), limit);
  EXPECT_EQ(ScheduleCache::process_bytes(), a.bytes() + b.bytes());
  EXPECT_LT(a.size(), a_before);
  EXPECT_TRUE(a.find(key("a", 14), &got));
  EXPECT_FALSE(a.find(key("a", 0), &got));
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(b.find(key("b", i), &got));
}

TEST_F(ScheduleCacheBound, KeysThatNeverRepeatDoNotEvictOnesThatDo) {
  const int64_t limit = 40 * 1024;
  ScheduleCache::set_process_limit_for_testing(limit);
  ScheduleCache hot, noise;
  std::shared_ptr<const RankSchedule> got;
  for (int i = 0; i < 5; ++i) {  // a loop's patterns: each seen twice, then cached
    hot.offer(key("hot", i), entry());
    hot.offer(key("hot", i), entry());
  }
  for (int i = 0; i < 100000; ++i) {  // random arrivals: a new key every call, on two caches
    ScheduleCache& c = i % 2 ? noise : hot;
    if (!c.find(key("noise", i), &got)) c.offer(key("noise", i), entry());
  }
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(hot.find(key("hot", i), &got)) << i;
  EXPECT_EQ(noise.size(), 0u);
  EXPECT_LE(ScheduleCache::process_bytes(), limit);
}

TEST_F(ScheduleCacheBound, AFreedCacheLeavesTheTotal) {
  ScheduleCache::set_process_limit_for_testing(int64_t{1} << 30);
  const int64_t before = ScheduleCache::process_bytes();
  {
    ScheduleCache c;
    for (int i = 0; i < 10; ++i) c.insert(key("c", i), entry());
    EXPECT_EQ(ScheduleCache::process_bytes(), before + c.bytes());
  }
  EXPECT_EQ(ScheduleCache::process_bytes(), before);
}

TEST_F(ScheduleCacheBound, LimitZeroCachesNothing) {
  ScheduleCache::set_process_limit_for_testing(0);
  ScheduleCache c;
  std::shared_ptr<const RankSchedule> got;
  c.insert(key("z", 0), entry());
  c.offer(key("z", 1), entry());
  c.offer(key("z", 1), entry());
  EXPECT_FALSE(c.find(key("z", 0), &got));
  EXPECT_FALSE(c.find(key("z", 1), &got));
  EXPECT_EQ(ScheduleCache::process_bytes(), 0);
}

// The latest call's schedule answers only a call whose row and input are equal in every field:
// any one field changed (an arrival by one bit, a cost, the layout's identity) is a different call.
TEST(LastSchedule, AnswersOnlyTheSameRowAndInput) {
  GeneratorInput in;
  in.p = 8;
  in.blocks = 16;
  in.arrivals.assign(8, 0.0);
  in.arrivals[3] = 0.1;
  in.bytes = 4096;
  const AlgorithmInfo* row = find_algorithm(Collective::allreduce, "ring");
  const AlgorithmInfo* other = find_algorithm(Collective::allreduce, "prr");
  ASSERT_NE(row, nullptr);
  ASSERT_NE(other, nullptr);
  LastSchedule last;
  std::shared_ptr<const RankSchedule> got;
  EXPECT_FALSE(last.find(Collective::allreduce, row, in, &got));  // nothing kept yet
  const auto kept = std::make_shared<const RankSchedule>();
  last.keep(Collective::allreduce, row, in, kept);
  ASSERT_TRUE(last.find(Collective::allreduce, row, in, &got));
  EXPECT_EQ(got, kept);
  EXPECT_FALSE(last.find(Collective::allreduce, other, in, &got));
  EXPECT_FALSE(last.find(Collective::reduce, row, in, &got));

  const std::vector<void (*)(GeneratorInput&)> changes = {
      [](GeneratorInput& g) { g.p = 9; },
      [](GeneratorInput& g) { g.blocks = 17; },
      [](GeneratorInput& g) { g.root = 2; },
      [](GeneratorInput& g) { g.arrivals[3] = std::nextafter(0.1, 1.0); },
      [](GeneratorInput& g) { g.arrivals.push_back(0.0); },
      [](GeneratorInput& g) { g.arrivals[0] = -0.0; },
      [](GeneratorInput& g) { g.cost.alpha *= 2; },
      [](GeneratorInput& g) { g.cost.beta *= 2; },
      [](GeneratorInput& g) { g.cost.gamma *= 2; },
      [](GeneratorInput& g) { g.cost.cores_shared = true; },
      [](GeneratorInput& g) { g.cost.shared_memory = true; },
      [](GeneratorInput& g) { g.cost.intra_alpha = 1e-7; },
      [](GeneratorInput& g) { g.cost.intra_beta = 1e-10; },
      [](GeneratorInput& g) { g.bytes = 4097; },
      [](GeneratorInput& g) { g.round_time = 1e-3; },
      [](GeneratorInput& g) { g.impl = "pairing"; },
      [](GeneratorInput& g) { g.counts.assign(8, 1); },
      [](GeneratorInput& g) { g.elem_bytes = 4; },
      [](GeneratorInput& g) { g.link_model = LinkModel::homogeneous(8, 1e-6, 1e-9).model; },
      [](GeneratorInput& g) { g.nodes = std::make_shared<const NodeLayout>(); },
  };
  for (size_t i = 0; i < changes.size(); ++i) {
    GeneratorInput changed = in;
    changes[i](changed);
    EXPECT_FALSE(same_input(in, changed)) << "change " << i;
    EXPECT_FALSE(last.find(Collective::allreduce, row, changed, &got)) << "change " << i;
  }
  EXPECT_TRUE(same_input(in, GeneratorInput(in)));
}

}  // namespace
}  // namespace papcoll
