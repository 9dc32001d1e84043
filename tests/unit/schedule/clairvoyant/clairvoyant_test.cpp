// Clairvoyant reduce: the three implementations (linear = Listing 2 with the fixes of Sect. 4,
// pairing heaps, segment tree = Listing 8) produce the identical schedule on thousands of random
// instances drawn as in Sect. 5.7, every schedule verifies and keeps the single-port promise, and
// the paper's worked examples come out as the paper describes.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>

#include "schedule/clairvoyant/bench.hpp"
#include "schedule/clairvoyant/clairvoyant.hpp"
#include "schedule/clairvoyant/finish_rounds.hpp"
#include "schedule/registry.hpp"
#include "verify/port_check.hpp"
#include "verify/verifier.hpp"

namespace papcoll::clairvoyant {
namespace {

// Debug builds under AddressSanitizer (scripts/test.sh) run a quarter of the random instances.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr int kScale = 4;
#else
constexpr int kScale = 1;
#endif

::testing::AssertionResult all_agree_and_verify(const Instance& in) {
  const Result a = run_linear(in), b = run_pairing(in), c = run_segtree(in);
  auto describe = [&] {
    std::ostringstream o;
    o << "p=" << in.p << " N=" << in.segments << " root=" << in.root << " d=" << in.round_time
      << " arrivals:";
    for (double x : in.arrivals) o << ' ' << x;
    return o.str();
  };
  if (!a.same_transfers(b))
    return ::testing::AssertionFailure() << "linear and pairing differ: " << describe();
  if (!a.same_transfers(c))
    return ::testing::AssertionFailure() << "linear and segtree differ: " << describe();
  if (a.rounds != c.rounds || a.busy_rounds != c.busy_rounds || a.searches != c.searches)
    return ::testing::AssertionFailure() << "round counts differ: " << describe();
  const Schedule s = to_schedule(in, c);
  VerifyResult v = verify_schedule(s);
  if (v.ok) v = verify_single_port(s);
  if (!v.ok) return ::testing::AssertionFailure() << v.error << ": " << describe();
  return ::testing::AssertionSuccess();
}

// Sect. 5.7's two distributions, on small sizes; plus a third with ties (integer arrivals and
// round times, many equal times) where tie breaking by rank matters most.
TEST(Clairvoyant, ThreeImplementationsAgreeOnThousandsOfRandomInstances) {
  std::mt19937_64 rng(2021);
  int checked = 0;
  for (int i = 0; i < 3000 / kScale; ++i) {
    const int p = 1 + static_cast<int>(rng() % 24);
    const int n = 1 + static_cast<int>(rng() % 24);
    Instance in;
    switch (i % 3) {
      case 0: in = random_instance(p, n, Dist::uniform, rng()); break;
      case 1: in = random_instance(p, n, Dist::skewed, rng()); break;
      default:
        in.p = p;
        in.segments = n;
        in.root = static_cast<int>(rng() % static_cast<uint64_t>(p));
        in.round_time = 1 + static_cast<double>(rng() % 3);
        for (int q = 0; q < p; ++q) in.arrivals.push_back(static_cast<double>(rng() % 6));
    }
    ASSERT_TRUE(all_agree_and_verify(in));
    ++checked;
  }
  EXPECT_EQ(checked, 3000 / kScale);
}

TEST(Clairvoyant, ThreeImplementationsAgreeOnLargerInstances) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 12 / kScale; ++i) {
    const int p = 40 + static_cast<int>(rng() % 60), n = 40 + static_cast<int>(rng() % 100);
    ASSERT_TRUE(
        all_agree_and_verify(random_instance(p, n, i % 2 ? Dist::skewed : Dist::uniform, rng())));
  }
  // More than 512 segments: the segment tree's run-time column width.
  ASSERT_TRUE(all_agree_and_verify(random_instance(9, 700, Dist::uniform, 3)));
}

// Sect. 4.2's example: P = 4, a = (0, 0, 0, 1.1), root p0, N = 4, d = 1. Round 0: p0 and p1
// exchange segments 0 and 1, p2 idles. Round 1: p0 receives segment 0 from p2, p1 segment 1 from
// p3; p1 must not pass segment 1 on in that round (state P'), nor p0 segment 0.
TEST(Clairvoyant, PaperSection42Example) {
  Instance in;
  in.p = 4;
  in.segments = 4;
  in.root = 0;
  in.arrivals = {0, 0, 0, 1.1};
  in.round_time = 1;
  const Result r = run_segtree(in);
  ASSERT_GE(r.transfers.size(), 4u);
  EXPECT_EQ(r.transfers[0], (Transfer{1, 0, 0, false}));  // round 0: p1 -> p0, segment 0
  EXPECT_EQ(r.transfers[1], (Transfer{0, 1, 1, false}));  // round 0: p0 -> p1, segment 1
  EXPECT_EQ(r.transfers[2], (Transfer{2, 0, 0, false}));  // round 1: p2 -> p0, segment 0
  EXPECT_EQ(r.transfers[3], (Transfer{3, 1, 1, false}));  // round 1: p3 -> p1, segment 1
  EXPECT_EQ(r.round_of(0), 0);
  EXPECT_EQ(r.round_of(1), 0);
  EXPECT_EQ(r.round_of(2), 1);
  EXPECT_EQ(r.round_of(3), 1);
  for (size_t i = 0; i < r.transfers.size(); ++i) {
    const Transfer& t = r.transfers[i];
    if (r.round_of(i) == 1) {
      EXPECT_FALSE(t.from == 1 && t.segment == 1);
      EXPECT_FALSE(t.from == 0 && t.segment == 0);
    }
  }
  EXPECT_TRUE(all_agree_and_verify(in));
}

// Sect. 5.1's example: one segment, d = 1 ms, arrivals 0, 1, 2, 3 s. Thousands of idle rounds,
// which the segment tree skips: it does only the rounds where two processes meet.
TEST(Clairvoyant, IdleRoundsAreSkipped) {
  Instance in;
  in.p = 4;
  in.segments = 1;
  in.root = 0;
  in.arrivals = {0, 1, 2, 3};
  in.round_time = 0.001;
  const Result r = run_segtree(in);
  EXPECT_EQ(r.transfers.size(), 3u);  // each late process hands its segment to the root
  EXPECT_GT(r.rounds, 2900);
  EXPECT_LE(r.busy_rounds, 3);
  for (const Transfer& t : r.transfers) EXPECT_EQ(t.to, 0);
  EXPECT_TRUE(all_agree_and_verify(in));
}

// Fig. 5: a = (0.2, 1.1, 2.3), d = 1: the order within G depends on the head; the doubled index
// space of Sect. 5.4.3 must reproduce it. Also with every root and late roots (pseudo-root).
TEST(Clairvoyant, HeadDependentOrderAndPseudoRoot) {
  for (int root = 0; root < 3; ++root)
    for (int n = 1; n <= 5; ++n) {
      Instance in;
      in.p = 3;
      in.segments = n;
      in.root = root;
      in.arrivals = {0.2, 1.1, 2.3};
      in.round_time = 1;
      ASSERT_TRUE(all_agree_and_verify(in));
    }
  std::mt19937_64 rng(11);
  for (int i = 0; i < 200; ++i) {  // the root arrives in the middle of the pack
    Instance in = random_instance(12, 9, Dist::uniform, rng());
    in.arrivals[in.root] = 6.05;
    ASSERT_TRUE(all_agree_and_verify(in));
  }
}

TEST(Clairvoyant, EqualArrivalsAndOneProcess) {
  for (int p = 1; p <= 20; ++p)
    for (int n : {1, 2, p, 3 * p}) {
      Instance in;
      in.p = p;
      in.segments = n;
      in.root = p / 2;
      ASSERT_TRUE(all_agree_and_verify(in));
    }
  Instance one;
  EXPECT_TRUE(run_segtree(one).transfers.empty());
}

// The sink may receive a segment it already gave away (state E): that receive overwrites.
TEST(Clairvoyant, ReceivesIntoStateEAreCopies) {
  Instance in;
  in.p = 2;
  in.segments = 3;
  in.root = 0;
  const Result r = run_segtree(in);
  bool copy = false;
  for (const Transfer& t : r.transfers) copy = copy || (t.copy && t.to == 0);
  EXPECT_TRUE(copy);
  EXPECT_TRUE(all_agree_and_verify(in));
}

TEST(Clairvoyant, FinishRoundsAreTheSimulationsAndCachedByWhatItReads) {
  std::mt19937_64 rng(11);
  for (int i = 0; i < 60; ++i) {
    Instance in;
    in.p = 2 + static_cast<int>(rng() % 40);
    in.segments = 1 + static_cast<int>(rng() % 12);
    in.root = static_cast<int>(rng() % static_cast<uint64_t>(in.p));
    in.round_time = 1.0;
    std::uniform_real_distribution<double> a(0, 6);
    in.arrivals.resize(static_cast<size_t>(in.p));
    for (double& x : in.arrivals) x = a(rng);
    const Result r = run(default_impl(in), in);
    std::vector<int64_t> last(static_cast<size_t>(in.p), -1);
    for (size_t k = 0; k < r.round_starts.size(); ++k) {
      const size_t end = k + 1 < r.round_starts.size() ? r.round_starts[k + 1].first
                                                       : r.transfers.size();
      for (size_t t = r.round_starts[k].first; t < end; ++t)
        last[r.transfers[t].from] = last[r.transfers[t].to] = r.round_starts[k].round;
    }
    const auto f = finish_rounds(in);
    EXPECT_EQ(f->last_round, last) << i;
    EXPECT_EQ(f->transfer_rounds, static_cast<int64_t>(r.round_starts.size())) << i;
    // Shifted, and every time moved within its round keeping the order of the fractional
    // times: the simulation reads the same, so the cache answers without running it.
    Instance moved = in;
    std::vector<double> frac(in.arrivals.size());
    for (size_t v = 0; v < frac.size(); ++v) frac[v] = in.arrivals[v] - std::floor(in.arrivals[v]);
    for (size_t v = 0; v < frac.size(); ++v)
      moved.arrivals[v] = 100 + std::floor(in.arrivals[v]) + 0.5 * frac[v];
    const FinishRoundsStats before = finish_rounds_stats();
    EXPECT_EQ(finish_rounds(moved)->last_round, last) << i;
    EXPECT_EQ(finish_rounds_stats().hits, before.hits + 1) << i;
  }
}

TEST(Clairvoyant, RejectsBadInput) {
  Instance in;
  in.p = 3;
  in.segments = 2;
  in.arrivals = {0, 1};
  for (Impl impl : {Impl::linear, Impl::pairing, Impl::segtree}) {
    EXPECT_THROW(run(impl, in), std::invalid_argument);
    Instance bad = in;
    bad.arrivals = {0, 1, std::numeric_limits<double>::quiet_NaN()};
    EXPECT_THROW(run(impl, bad), std::invalid_argument);
    bad.arrivals.clear();
    bad.round_time = 0;
    EXPECT_THROW(run(impl, bad), std::invalid_argument);
    bad.round_time = 1;
    bad.root = 3;
    EXPECT_THROW(run(impl, bad), std::invalid_argument);
  }
}

TEST(Clairvoyant, ThroughTheRegistry) {
  const AlgorithmInfo* info = find_algorithm(Collective::reduce, "clairvoyant");
  ASSERT_NE(info, nullptr);
  GeneratorInput in;
  in.p = 16;
  in.blocks = 16;
  in.root = 3;
  in.round_time = 1e-4;
  std::mt19937_64 rng(1);
  for (int i = 0; i < 16; ++i) in.arrivals.push_back(static_cast<double>(rng() % 1000) * 1e-6);
  const Schedule ref = generate_schedule(*info, in);
  EXPECT_EQ(ref.algorithm, "clairvoyant");
  EXPECT_EQ(ref.root, 3);
  EXPECT_TRUE(verify_schedule(ref).ok);
  for (const char* impl : {"linear", "pairing", "segtree"}) {
    in.impl = impl;
    const Schedule s = generate_schedule(*info, in);
    ASSERT_EQ(s.ranks.size(), ref.ranks.size());
    for (size_t r = 0; r < s.ranks.size(); ++r) EXPECT_EQ(s.ranks[r], ref.ranks[r]) << impl;
  }
  in.impl = "quantum";
  EXPECT_THROW(generate_schedule(*info, in), std::invalid_argument);
  // Without round_time the round time is the Hockney time of one block.
  in.impl.clear();
  in.round_time = 0;
  EXPECT_EQ(instance_of(in).round_time, block_round_time(in));
}

TEST(Clairvoyant, SchedulesRenumberRoundsCompactly) {
  Instance in;
  in.p = 4;
  in.segments = 1;
  in.arrivals = {0, 1, 2, 3};
  in.round_time = 0.001;
  const Schedule s = to_schedule(in, run_segtree(in));
  int64_t last = -1;
  for (const RankSchedule& r : s.ranks)
    for (const Step& st : r.steps) last = std::max(last, st.round);
  EXPECT_EQ(last, 2);  // three rounds with a transfer, numbered 0, 1, 2
}

// Sect. 5.5 promises 5 bits per (process, segment) pair; leaves that are the state columns
// themselves and a tree over the occupied leaves only need 2 (docs/algorithms.md).
// Sect. 5.5 budgets 5 bits per (process, segment) pair; ours: the state, the tree's internal
// nodes and the holder rows, one bit each.
TEST(Clairvoyant, SegtreeMemoryIsThreeBitsPerPairAt512) {
  const Result r = run_segtree(random_instance(512, 512, Dist::skewed, 1));
  EXPECT_LE(r.state_bits / (512.0 * 512.0), 3.01);
}

}  // namespace
}  // namespace papcoll::clairvoyant
