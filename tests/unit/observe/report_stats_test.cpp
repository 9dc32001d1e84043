// The straggler report without MPI (src/observe/report_*.cpp): the per-key log stays bounded and
// keeps the same calls on every rank, the records survive their binary form, and the statistics
// name the late rank with its lateness, on one clock after the measured offsets.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "observe/report_data.hpp"
#include "observe/report_record.hpp"
#include "observe/report_stats.hpp"

namespace papcoll::observe {
namespace {

CallRecord call(std::uint64_t n, double entry, const char* algo = "native") {
  CallRecord c;
  c.call = n;
  c.key = CallKey{0, 8, -1};
  c.algorithm = algo;
  c.entry = entry;
  c.seconds = 1e-6;
  return c;
}

// The sampling rule (report_record.hpp): one kept call per block of 2^level calls, the level
// L+1 calls among the level L ones, and next_kept_after() the first kept call after any call.
TEST(ReportRecord, SamplingRuleIsStratifiedNestedAndPredictable) {
  for (int level = 0; level <= 6; ++level) {
    const std::uint64_t block = std::uint64_t{1} << level;
    std::uint64_t kept_calls = 0, hits_every_3rd = 0;
    for (std::uint64_t b = 1; b < 400; ++b) {
      int in_block = 0;
      for (std::uint64_t c = b * block; c < (b + 1) * block; ++c)
        if (kept(c, level)) {
          ++in_block;
          ++kept_calls;
          if (c % 3 == 0) ++hits_every_3rd;
          EXPECT_TRUE(kept(c, level > 0 ? level - 1 : 0)) << c;
        }
      EXPECT_EQ(in_block, 1) << "level " << level << " block " << b;
    }
    for (std::uint64_t c = 0; c < 2000; ++c) {
      std::uint64_t next = c + 1;
      while (!kept(next, level)) ++next;
      EXPECT_EQ(next_kept_after(c, level), next) << "level " << level << " call " << c;
    }
    // The one-hash test that thinning uses agrees with kept() at the next level.
    for (std::uint64_t c = 0; c < 4000; ++c)
      if (kept(c, level)) {
        EXPECT_EQ(kept_at_next_level(c, level), kept(c, level + 1)) << c;
      }
    // No aliasing with a straggler late every third call: about a third of the kept calls.
    if (level >= 2) {
      EXPECT_NEAR(double(hits_every_3rd) / kept_calls, 1.0 / 3, 0.08) << level;
    }
  }
}

TEST(ReportRecord, LogIsBoundedAndCountsStayExact) {
  ReportRecord r(256);
  for (std::uint64_t n = 1; n <= 100000; ++n) r.add(call(n, n * 1e-3));
  ASSERT_EQ(r.keys().size(), 1u);
  const KeyRecord& k = r.keys()[0];
  EXPECT_EQ(k.calls, 100000u);
  EXPECT_LE(k.samples.size(), 256u);
  EXPECT_GE(k.samples.size(), 64u);  // thinned by about half at a time
  EXPECT_GE(k.level, 8);
  ASSERT_EQ(k.algorithms.size(), 1u);
  EXPECT_EQ(k.algorithms[0].second, 100000u);
  for (const Sample& s : k.samples) EXPECT_TRUE(kept(s.call, k.level));
  // In call order, as the statistics' lookup needs.
  for (size_t i = 1; i < k.samples.size(); ++i) EXPECT_LT(k.samples[i - 1].call, k.samples[i].call);
}

// Only the calls the key's log keeps when they are made are timed (CallWatch::record): each
// stands for 2^level calls (timed_weight), an untimed one adds nothing; the estimate of the total
// is unbiased, and the timed share halves each time the log fills.
TEST(ReportRecord, TimeInTheCollectiveFromTimedCalls) {
  ReportRecord r(2048);  // the default PAPCOLL_REPORT_SAMPLES
  double expected = 0;
  std::uint64_t timed = 0;
  for (std::uint64_t n = 1; n <= 100000; ++n) {
    CallRecord c = call(n, n * 1e-3);
    const double w = r.timed_weight(c.key, n);
    if (w > 0) {
      c.weight = w;
      expected += w * 1e-6;
      ++timed;
    } else {
      c.seconds = NAN;
    }
    r.add(c);
  }
  ASSERT_EQ(r.keys().size(), 1u);
  const KeyRecord& k = r.keys()[0];
  EXPECT_EQ(k.calls, 100000u);
  EXPECT_NEAR(k.seconds, expected, 1e-12);
  // Every call of the first log's worth, then about half a log's worth per level: far fewer
  // than all calls, and the estimate of 100000 us within 5 %.
  EXPECT_GE(timed, 2048u + 4 * 1024u);
  EXPECT_LE(timed, 12000u);
  EXPECT_NEAR(k.seconds, 100000e-6, 0.05 * 100000e-6);
  EXPECT_DOUBLE_EQ(k.max_seconds, 1e-6);
  // A key not seen yet is timed (level 0).
  EXPECT_EQ(r.timed_weight(CallKey{1, 8, -1}, 100001), 1.0);
}

// The interposition library's loop (quiet_repeat, else timed_repeat and log_repeat with the
// clock read at the entry and the exit, else add()) weighs each timed call like timed_weight():
// the same total, log, level and counts as CallWatch's path.
TEST(ReportRecord, TimedRepeatsWeighLikeTimedWeight) {
  ReportRecord watch(2048), loop(2048);
  std::uint64_t logged_by_loop = 0;
  for (std::uint64_t n = 1; n <= 100000; ++n) {
    CallRecord c = call(n, n * 1e-3);
    c.seconds = 1e-6 * (1 + n % 7);
    CallRecord w = c;
    if (watch.needs_entry(c.key, n)) {
      w.weight = watch.timed_weight(c.key, n);
      watch.add(w);
    } else {
      w.entry = w.seconds = NAN;
      if (!watch.add_repeat(c.key, c.algorithm, c.reason, n)) watch.add(w);
    }
    if (loop.quiet_repeat(c.key, c.algorithm, c.reason, n)) {
      loop.count_repeat();
    } else if (loop.timed_repeat(c.key, c.algorithm, c.reason, n)) {
      loop.log_repeat(c.key, c.algorithm, c.reason, n, c.entry, c.seconds);
      ++logged_by_loop;
    } else {
      c.weight = loop.timed_weight(c.key, n);
      if (c.weight == 0) c.entry = c.seconds = NAN;
      loop.add(c);
    }
  }
  const KeyRecord& a = watch.keys()[0];
  const KeyRecord& b = loop.keys()[0];
  EXPECT_EQ(b.calls, 100000u);
  EXPECT_EQ(b.calls, a.calls);
  EXPECT_EQ(b.algorithms, a.algorithms);
  EXPECT_EQ(b.reasons[0], a.reasons[0]);
  EXPECT_EQ(b.level, a.level);
  EXPECT_DOUBLE_EQ(b.seconds, a.seconds);
  EXPECT_DOUBLE_EQ(b.max_seconds, a.max_seconds);
  ASSERT_EQ(b.samples.size(), a.samples.size());
  for (size_t j = 0; j < a.samples.size(); ++j) {
    EXPECT_EQ(b.samples[j].call, a.samples[j].call);
    EXPECT_EQ(b.samples[j].seconds, a.samples[j].seconds);
  }
  EXPECT_GE(logged_by_loop, 2048u + 4 * 1024u);  // all but the key's first call
  EXPECT_NEAR(b.seconds, 4e-6 * 100000, 0.05 * 4e-6 * 100000);
}

// A caller that reads the entry clock only when needs_entry() says so and hands unmeasured
// calls to add_repeat() first (CallWatch, for the interposition library's calls to the MPI
// library) loses nothing: every call the log keeps and every timed call had its entry read, a
// call without one is counted but not logged, and the counts per key, algorithm and reason are
// those of add() on every call. The same with the interposition library's steady state first
// (quiet_repeat and count_repeat, else timed_repeat or other_repeat: counted, or timed and then
// log_repeat with the entry and the time), and before it, for the MPI library's calls
// ("native", named), the observer's mirror of the latest template (QuickRepeat: takes(), else
// count_and_arm() where quiet_repeat() said yes). Returns the calls whose entry was read and the
// quiet ones.
struct RepeatPaths {
  std::uint64_t read = 0, quiet = 0, mirrored = 0;
};
RepeatPaths check_repeat_paths(CallRecord (*make)(std::uint64_t), std::uint64_t calls,
                               size_t n_keys) {
  ReportRecord with_all(64), sampled(64);
  QuickRepeat mirror;
  ReportRecord fast(64, &mirror);
  const char* const native = call(0, 0).algorithm;
  std::uint64_t read = 0, quiet = 0, timed = 0, mirrored = 0;
  for (std::uint64_t n = 1; n <= calls; ++n) {
    CallRecord c = make(n);
    with_all.add(c);
    const bool native_call = c.algorithm == native && c.reason == AutoReason::named;
    bool fast_quiet = false, fast_timed = false;
    if (native_call && mirror.takes(c.key, n)) {
      ++mirror.count;
      ++mirrored;
      fast_quiet = true;
    } else if (fast.quiet_repeat(c.key, c.algorithm, c.reason, n)) {
      fast_quiet = true;
      if (native_call)
        fast.count_and_arm(c.key);
      else
        fast.count_repeat();
    } else if (fast.timed_repeat(c.key, c.algorithm, c.reason, n)) {
      fast_timed = true;
    } else {
      const auto other = fast.other_repeat(c.key, c.algorithm, c.reason, n);
      fast_quiet = other == ReportRecord::Repeat::counted;
      fast_timed = other == ReportRecord::Repeat::timed;
    }
    quiet += fast_quiet;
    timed += fast_timed;
    if (sampled.needs_entry(c.key, n)) {
      EXPECT_FALSE(fast_quiet) << "call " << n;
      ++read;
      sampled.add(c);
      if (fast_timed)
        fast.log_repeat(c.key, c.algorithm, c.reason, n, c.entry, c.seconds);
      else
        fast.add(c);
    } else {
      EXPECT_FALSE(fast_timed) << "call " << n;
      c.entry = NAN;
      c.seconds = NAN;
      if (!sampled.add_repeat(c.key, c.algorithm, c.reason, n)) sampled.add(c);
      if (!fast_quiet && !fast.add_repeat(c.key, c.algorithm, c.reason, n)) fast.add(c);
    }
  }
  EXPECT_EQ(fast.calls(), calls);
  EXPECT_EQ(sampled.calls(), calls);
  const std::vector<KeyRecord> all_keys = with_all.keys();
  const std::vector<KeyRecord> sampled_keys = sampled.keys();
  const std::vector<KeyRecord> fast_keys = fast.keys();
  EXPECT_EQ(sampled_keys.size(), n_keys);
  EXPECT_EQ(fast_keys.size(), n_keys);
  EXPECT_EQ(all_keys.size(), n_keys);
  if (sampled_keys.size() != n_keys || fast_keys.size() != n_keys || all_keys.size() != n_keys)
    return {read, quiet, mirrored};
  for (size_t i = 0; i < 2 * n_keys; ++i) {
    const KeyRecord& a = all_keys[i % n_keys];
    const KeyRecord& b = i < n_keys ? sampled_keys[i] : fast_keys[i - n_keys];
    EXPECT_EQ(b.key, a.key);
    EXPECT_EQ(b.calls, a.calls);
    EXPECT_EQ(b.algorithms, a.algorithms);
    for (int r = 0; r < kReasons; ++r) EXPECT_EQ(b.reasons[r], a.reasons[r]);
    EXPECT_EQ(b.level, a.level);
    EXPECT_EQ(b.samples.size(), a.samples.size());
    for (size_t j = 0; j < std::min(a.samples.size(), b.samples.size()); ++j) {
      EXPECT_EQ(b.samples[j].call, a.samples[j].call);
      EXPECT_EQ(b.samples[j].entry, a.samples[j].entry);
      EXPECT_EQ(b.samples[j].seconds, a.samples[j].seconds);
    }
  }
  // The loop's logged calls took timed_repeat's path (most of them: a key's first call and a
  // call right after another template's add() take add()).
  EXPECT_GE(timed, read / 2) << "read " << read;
  return {read, quiet, mirrored};
}

// Two keys and two algorithms interleaved in runs.
TEST(ReportRecord, EntryReadExactlyWhereNeeded) {
  const auto [read, quiet, mirrored] = check_repeat_paths(
      [](std::uint64_t n) {
        CallRecord c = call(n, n * 1e-3, (n / 700) % 3 == 1 ? "ring" : "native");
        if ((n / 1100) % 4 == 2) c.key.bytes = 64;
        c.reason = n % 5000 < 10 ? AutoReason::balanced : AutoReason::named;
        return c;
      },
      20000, 2);
  EXPECT_GE(quiet, 15000u);    // the steady state: most calls
  EXPECT_GE(mirrored, 4000u);  // a share of them in the observer's line alone
  // The clock is read on the logged calls only: the first log's worth of each key, then a
  // share that halves each time the log fills.
  EXPECT_GE(read, 2 * 64u);
  EXPECT_LE(read, 2000u);
  // A call without an entry time is never logged.
  ReportRecord none(64);
  CallRecord c = call(1, 1e-3);
  c.entry = NAN;
  none.add(c);
  EXPECT_EQ(none.keys()[0].calls, 1u);
  EXPECT_TRUE(none.keys()[0].samples.empty());
}

// A loop of several keys (an all-reduce, a broadcast after each, another all-reduce after every
// third, a fifth key now and then that pushes the least recently used template out): the older
// templates keep each key's steady state, with the same counts, levels and logs as add() on
// every call.
TEST(ReportRecord, LoopOfSeveralKeysStaysQuiet) {
  const auto [read, quiet, mirrored] = check_repeat_paths(
      [](std::uint64_t n) {
        CallRecord c = call(n, n * 1e-3);
        if (n % 2 == 0) c.key = CallKey{2, 16, 1};                  // the broadcast
        if (n % 6 == 5) c.key = CallKey{0, 24, -1};                 // the other all-reduce
        if (n % 6 == 3 && n % 1000 < 60) c.key = CallKey{1, 8, 0};  // a reduce now and then
        if (n % 5000 == 1) c.key = CallKey{3, 40, -1};              // a fifth key, rarely
        if (n % 997 == 0) c.algorithm = "ring";
        return c;
      },
      60000, 5);
  EXPECT_GE(quiet, 54000u);
  EXPECT_LE(read, 4000u);
}

// A tight loop of one call of the MPI library (the interposition library's steady state): the
// observer's mirror counts nearly every call without touching the record, and the record's
// counts (calls() before anything folded them, then the key's) are those of add() on every call.
TEST(ReportRecord, MirrorCountsTheTightLoop) {
  const auto [read, quiet, mirrored] =
      check_repeat_paths([](std::uint64_t n) { return call(n, n * 1e-3); }, 100000, 1);
  EXPECT_GE(mirrored, 95000u);
  EXPECT_LE(read, 3000u);
  // Counted by the mirror alone, then read: the count is there before any fold.
  QuickRepeat mirror;
  ReportRecord r(16, &mirror);
  const CallRecord first = call(1, 1e-3);
  r.add(first);
  for (std::uint64_t n = 2; n <= 16; ++n) {  // the log keeps the first 16 calls
    ASSERT_TRUE(r.timed_repeat(first.key, first.algorithm, first.reason, n));
    r.log_repeat(first.key, first.algorithm, first.reason, n, n * 1e-3, 1e-6);
  }
  std::uint64_t n = 17;
  for (; !r.quiet_repeat(first.key, first.algorithm, first.reason, n); ++n) {
    ASSERT_TRUE(r.timed_repeat(first.key, first.algorithm, first.reason, n));
    r.log_repeat(first.key, first.algorithm, first.reason, n, n * 1e-3, 1e-6);
  }
  r.count_and_arm(first.key);
  std::uint64_t counted = n;
  while (mirror.takes(first.key, ++n)) {
    ++mirror.count;
    ++counted;
  }
  EXPECT_GT(counted, n / 2);
  EXPECT_EQ(r.calls(), counted);
  EXPECT_EQ(r.keys()[0].calls, counted);
  EXPECT_EQ(mirror.until, 0u);  // folded and disarmed
  EXPECT_EQ(r.calls(), counted);
}

// One key whose calls alternate between two algorithms: two templates of the key, and the log
// goes to the next level through either, so the other's next kept call may be one the log no
// longer keeps (log_repeat then only counts it).
TEST(ReportRecord, OneKeyTwoAlgorithmsAlternating) {
  const auto [read, quiet, mirrored] = check_repeat_paths(
      [](std::uint64_t n) { return call(n, n * 1e-3, n % 2 ? "ring" : "native"); }, 40000, 1);
  EXPECT_GE(quiet, 36000u);
}

TEST(ReportRecord, EveryRankKeepsTheSameCalls) {
  // Two ranks, one of which refused (skipped) a few calls of the key: the deepest level's calls
  // are in both logs.
  ReportRecord a(128), b(128);
  for (std::uint64_t n = 1; n <= 5000; ++n) {
    a.add(call(n, n));
    if (n % 1000 != 0) b.add(call(n, n));
  }
  const KeyRecord& ka = a.keys()[0];
  const KeyRecord& kb = b.keys()[0];
  const int level = std::max(ka.level, kb.level);
  std::vector<std::uint64_t> ca, cb;
  for (const Sample& s : ka.samples)
    if (kept(s.call, level)) ca.push_back(s.call);
  for (const Sample& s : kb.samples)
    if (kept(s.call, level)) cb.push_back(s.call);
  EXPECT_EQ(ca, cb);
}

TEST(ReportRecord, KeysAndAlgorithms) {
  ReportRecord r(64);
  CallRecord c = call(1, 0.0, "ring");
  r.add(c);
  c.call = 2;
  c.key.bytes = 16;
  c.algorithm = "native";
  c.reason = AutoReason::no_pattern;
  r.add(c);
  c.call = 3;
  c.algorithm = "prr";
  c.reason = AutoReason::aware;
  c.gain = 0.25;
  r.add(c);
  ASSERT_EQ(r.keys().size(), 2u);
  EXPECT_EQ(r.keys()[1].calls, 2u);
  EXPECT_EQ(r.keys()[1].algorithms.size(), 2u);
  EXPECT_EQ(r.keys()[1].reasons[static_cast<int>(AutoReason::aware)], 1u);
  EXPECT_DOUBLE_EQ(r.keys()[1].gain_sum, 0.25);
}

// p ranks, `calls` calls; rank `late` arrives `delay` after the others in every call, rank 0 a
// little before the rest; rank r's clock reads `offset[r]` ahead of world rank 0's.
std::vector<RankData> job(int p, int calls, int late, double delay,
                          const std::vector<double>& offset, int capacity = 4096) {
  std::vector<RankData> ranks(static_cast<size_t>(p));
  for (int r = 0; r < p; ++r) {
    ReportRecord rec(capacity);
    for (int n = 1; n <= calls; ++n) {
      const double t = 10.0 * n + (r == late ? delay : 0.0) + (r == 0 ? -1e-4 : 0.0);
      CallRecord c = call(static_cast<std::uint64_t>(n), t + offset[static_cast<size_t>(r)]);
      c.predicted = r == late ? delay : 0.0;
      rec.add(c);
    }
    RankData& d = ranks[static_cast<size_t>(r)];
    d.world_rank = r;
    d.host = "node" + std::to_string(r / 2);
    d.clock_offset = offset[static_cast<size_t>(r)];
    CommData cd;
    cd.id = 42;
    cd.name = "MPI_COMM_WORLD";
    cd.size = p;
    cd.rank = r;
    for (int q = 0; q < p; ++q) cd.world_ranks.push_back(q);
    cd.calls = rec.calls();
    for (const KeyRecord& k : rec.keys()) cd.keys.push_back(key_data(k));
    d.comms.push_back(cd);
  }
  return ranks;
}

TEST(ReportStats, NamesTheLateRankWithItsLateness) {
  const std::vector<double> offset = {0.0, 5.0, -3.0, 0.25};  // clocks of different nodes
  const std::vector<RankData> ranks = job(4, 500, 2, 0.02, offset, 128);
  const std::vector<CommStats> comms = analyze(ranks, 50);
  ASSERT_EQ(comms.size(), 1u);
  const CommStats& c = comms[0];
  EXPECT_EQ(c.reporting, 4);
  ASSERT_FALSE(c.stragglers.empty());
  EXPECT_EQ(c.stragglers[0], 2);
  const RankStats& r2 = c.ranks[2];
  EXPECT_NEAR(r2.lateness.mean, 0.0201, 1e-9);  // after rank 0, which is 0.1 ms early
  EXPECT_NEAR(r2.lateness.median, 0.0201, 1e-9);
  EXPECT_NEAR(r2.lateness.max, 0.0201, 1e-9);
  EXPECT_DOUBLE_EQ(r2.last_share, 1.0);
  EXPECT_NEAR(c.ranks[0].lateness.mean, 0.0, 1e-9);
  EXPECT_NEAR(c.ranks[1].lateness.mean, 1e-4, 1e-9);
  // Rank 0 waits 20.1 ms per call for rank 2, over every call (the log holds 128 of 500).
  EXPECT_NEAR(c.ranks[0].wait_estimate, 500 * 0.0201, 1e-6);
  EXPECT_NEAR(c.ranks[2].wait_estimate, 0.0, 1e-9);
  ASSERT_EQ(c.keys.size(), 1u);
  EXPECT_EQ(c.keys[0].calls, 500u);
  EXPECT_LE(c.keys[0].matched, 128u);
  EXPECT_GT(c.keys[0].matched, 32u);
  // The prediction said rank 2 comes 20 ms late; it came 20.1 ms after the earliest.
  EXPECT_EQ(c.keys[0].prediction.calls, c.keys[0].matched);
  EXPECT_NEAR(c.keys[0].prediction.max_abs_error, 1e-4, 1e-6);
  ASSERT_FALSE(c.windows.empty());
  EXPECT_LE(c.windows.size(), 50u);
  for (const WindowStats& w : c.windows) {
    if (w.calls == 0) continue;
    EXPECT_NEAR(w.lateness[2], 0.0201, 1e-9);
  }
  // The straggler named per call: every logged call, in call order, names rank 2.
  ASSERT_EQ(c.last_by_call.size(), c.keys[0].matched);
  for (size_t i = 0; i < c.last_by_call.size(); ++i) {
    EXPECT_EQ(c.last_by_call[i].second, 2);
    if (i > 0) {
      EXPECT_LT(c.last_by_call[i - 1].first, c.last_by_call[i].first);
    }
  }
}

TEST(ReportStats, MissingRankLeavesCountsButNoLateness) {
  std::vector<RankData> ranks = job(3, 20, 1, 0.01, {0, 0, 0});
  ranks.pop_back();
  const std::vector<CommStats> comms = analyze(ranks);
  ASSERT_EQ(comms.size(), 1u);
  EXPECT_EQ(comms[0].reporting, 2);
  EXPECT_EQ(comms[0].keys[0].matched, 0u);
  EXPECT_TRUE(std::isnan(comms[0].ranks[1].lateness.mean));
}

TEST(ReportData, RoundTrip) {
  const std::vector<RankData> ranks = job(2, 50, 1, 0.003, {0.0, 1.5});
  const std::string bytes = serialize(ranks[1]);
  RankData back;
  ASSERT_TRUE(deserialize(bytes.data(), bytes.size(), &back));
  EXPECT_EQ(back.world_rank, 1);
  EXPECT_EQ(back.host, ranks[1].host);
  EXPECT_DOUBLE_EQ(back.clock_offset, 1.5);
  ASSERT_EQ(back.comms.size(), 1u);
  EXPECT_EQ(back.comms[0].keys[0].samples.size(), 50u);
  EXPECT_EQ(serialize(back), bytes);
  // Damaged or cut bytes are refused, never read past the end.
  for (size_t cut : {size_t{0}, size_t{7}, bytes.size() / 2, bytes.size() - 1})
    EXPECT_FALSE(deserialize(bytes.data(), cut, &back));
  std::string longer = bytes + "x";
  EXPECT_FALSE(deserialize(longer.data(), longer.size(), &back));
}

TEST(ReportStats, JsonHasTheDocumentedFields) {
  const std::vector<RankData> ranks = job(2, 10, 1, 0.005, {0, 0});
  ReportMeta meta;
  meta.world_size = 2;
  const std::string json = report_json(analyze(ranks), ranks, meta);
  for (const char* field : {"\"format\": \"papcoll-report\"", "\"version\": 1", "\"communicators\"",
                            "\"stragglers\"", "\"lateness_s\"", "\"wait_s\"", "\"last_share\"",
                            "\"windows\"", "\"algorithms\"", "\"reasons\"", "\"prediction\"",
                            "\"wait_histogram\"", "\"time_in_collective_s\"", "\"last_arrivals\""})
    EXPECT_NE(json.find(field), std::string::npos) << field;
}

TEST(ReportStats, WaitBins) {
  EXPECT_EQ(wait_bin(0), 0);
  EXPECT_EQ(wait_bin(5e-7), 0);
  EXPECT_EQ(wait_bin(1e-6), 1);
  EXPECT_EQ(wait_bin(1.0), 25);
  EXPECT_EQ(wait_bin(1e9), kWaitBins - 1);
  for (int b = 1; b < kWaitBins - 1; ++b) {
    EXPECT_EQ(wait_bin(wait_bin_upper_edge(b - 1) * 1.0001), b);
    EXPECT_LT(wait_bin_upper_edge(b - 1), wait_bin_upper_edge(b));
  }
}

}  // namespace
}  // namespace papcoll::observe
