// The schedule cache's one bound for every communicator of the process and its admission rule
// (schedule/schedule_cache.hpp): least recently used entries of any cache go first; a key is
// cached on its second sighting, so keys that never repeat neither stay nor evict the ones that do.
#include <gtest/gtest.h>

#include <memory>
#include <string>

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

}  // namespace
}  // namespace papcoll
