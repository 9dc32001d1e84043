// The arrival-aware broadcast and all-gatherv (arrival_bcast.cpp,
// arrival_allgatherv.cpp): verified symbolically for every p = 1..64 under random arrival
// patterns (one late, several late together, staggered, uniform, the root late) and every root;
// exactly the circulant schedules when nobody is late; the late ranks' part of the plan (one
// message of everything from a holder, distinct holders for ranks that come together); and
// auto's choice (selection.hpp, choose_bcast / choose_allgatherv).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "schedule/allgatherv_generators.hpp"
#include "schedule/arrival/arrival_allgatherv.hpp"
#include "schedule/arrival/arrival_bcast.hpp"
#include "schedule/bcast_generators.hpp"
#include "schedule/registry.hpp"
#include "select/selection.hpp"
#include "verify/verifier.hpp"

namespace papcoll {
namespace {

const AlgorithmInfo& row(Collective c, const char* name) {
  const AlgorithmInfo* a = find_algorithm(c, name);
  EXPECT_NE(a, nullptr) << name;
  return *a;
}

// One whole-buffer message under in's Hockney parameters.
double whole_message(const GeneratorInput& in) { return in.cost.alpha + in.cost.beta * in.bytes; }

// Arrival patterns in units of one whole-buffer message `m`.
std::vector<double> pattern_of_kind(int kind, int p, int root, double m, std::mt19937_64& rng) {
  std::vector<double> a(static_cast<size_t>(p), 0.0);
  std::uniform_real_distribution<double> u(0, 1);
  switch (kind) {
    case 0:  // one rank late
      a[rng() % p] = (1 + 30 * u(rng)) * m;
      break;
    case 1: {  // several late together
      const int k = 1 + static_cast<int>(rng() % static_cast<uint64_t>(p));
      for (int i = 0; i < k; ++i) a[rng() % p] = 12 * m;
      break;
    }
    case 2:  // staggered
      for (int r = 0; r < p; ++r)
        if (rng() % 3 == 0) a[r] = (r % 7) * 4 * m;
      break;
    case 3:  // uniform
      for (double& x : a) x = 20 * m * u(rng);
      break;
    default:  // the root latest
      for (double& x : a) x = 5 * m * u(rng);
      if (root >= 0) a[root] = 40 * m;
      break;
  }
  return a;
}

GeneratorInput input_for(int p, int blocks, int root) {
  GeneratorInput in;
  in.p = p;
  in.blocks = blocks;
  in.root = root;
  in.bytes = 1 << 16;
  in.cost.alpha = 20e-6;
  in.cost.beta = 8e-9;
  return in;
}

TEST(ArrivalBcast, VerifiesForEveryPEveryRootAndRandomPatterns) {
  const AlgorithmInfo& a = row(Collective::bcast, "arrival-aware");
  std::mt19937_64 rng(19);
  for (int p = 1; p <= 64; ++p)
    for (int root = 0; root < p; ++root) {
      GeneratorInput in = input_for(p, 1 + (p + root) % 4, root);
      const int kind = static_cast<int>(rng() % 5);
      in.arrivals = pattern_of_kind(kind, p, root, whole_message(in), rng);
      const VerifyResult v = verify_schedule(generate_schedule(a, in));
      ASSERT_TRUE(v.ok) << "p=" << p << " root=" << root << " pattern " << kind << ": " << v.error;
    }
}

TEST(ArrivalBcast, NobodyLateIsTheCirculantBroadcast) {
  const AlgorithmInfo& a = row(Collective::bcast, "arrival-aware");
  const AlgorithmInfo& c = row(Collective::bcast, "circulant");
  for (int p = 1; p <= 40; ++p)
    for (int n : {1, 2, 5})
      for (int root : {0, p / 2, p - 1}) {
        GeneratorInput in = input_for(p, n, root);
        EXPECT_EQ(generate_schedule(a, in).ranks, generate_schedule(c, in).ranks) << p;
        in.arrivals.assign(static_cast<size_t>(p), 0.25);  // all at once, any time
        EXPECT_EQ(generate_schedule(a, in).ranks, generate_schedule(c, in).ranks) << p;
      }
}

TEST(ArrivalBcast, TheRootLatestIsTheCirculantBroadcast) {
  const AlgorithmInfo& a = row(Collective::bcast, "arrival-aware");
  const AlgorithmInfo& c = row(Collective::bcast, "circulant");
  std::mt19937_64 rng(4);
  for (int p = 2; p <= 40; ++p) {
    const int root = static_cast<int>(rng() % static_cast<uint64_t>(p));
    GeneratorInput in = input_for(p, 3, root);
    in.arrivals = pattern_of_kind(4, p, root, whole_message(in), rng);
    EXPECT_EQ(generate_schedule(a, in).ranks, generate_schedule(c, in).ranks) << p;
  }
}

TEST(ArrivalBcast, OneLateRankGetsOneMessageFromAnEarlyRank) {
  const AlgorithmInfo& a = row(Collective::bcast, "arrival-aware");
  for (int p : {3, 4, 17, 48, 64})
    for (int n : {1, 4}) {
      GeneratorInput in = input_for(p, n, 0);
      in.arrivals.assign(static_cast<size_t>(p), 0.0);
      in.arrivals[1] = 20 * whole_message(in);
      const Schedule s = generate_schedule(a, in);
      ASSERT_TRUE(verify_schedule(s).ok);
      const RankSchedule& late = s.ranks[1];
      ASSERT_EQ(late.ops.size(), 1u) << p;
      EXPECT_EQ(late.ops[0].kind, OpKind::recv);
      EXPECT_EQ(late.ops[0].blocks, BlockSet::range(0, n));
      // After the early ranks' circulant: n - 1 + ceil(log2(p - 1)) rounds.
      int q = 0;
      while ((1 << q) < p - 1) ++q;
      EXPECT_EQ(late.steps[0].round, p - 1 >= 2 ? n - 1 + q : 0) << p;
      // Nobody else talks to it.
      int touching = 0;
      for (const RankSchedule& rs : s.ranks)
        for (const Op& op : rs.ops) touching += op.peer == 1;
      EXPECT_EQ(touching, 1) << p;
    }
}

TEST(ArrivalBcast, RanksArrivingTogetherGetDistinctServers) {
  for (int p : {16, 40, 64}) {
    GeneratorInput in = input_for(p, 2, 3);
    in.arrivals.assign(static_cast<size_t>(p), 0.0);
    const int late = p / 4;
    for (int r = 0; r < late; ++r) in.arrivals[p - 1 - r] = 30 * whole_message(in);
    const ArrivalBcastPlan plan = arrival_bcast_plan(in);
    ASSERT_EQ(static_cast<int>(plan.serves.size()), late) << p;
    std::set<int> servers;
    for (const ArrivalBcastPlan::Serve& s : plan.serves) {
      EXPECT_GE(plan.virt[s.from], 0) << "an early rank serves";
      EXPECT_NE(s.from, 3) << "the root serves only when nobody else can";
      servers.insert(s.from);
    }
    EXPECT_EQ(static_cast<int>(servers.size()), late) << p;
  }
}

TEST(ArrivalBcast, LaterLateRanksAreServedByEarlierOnes) {
  // Staggered arrivals far apart: each late rank is served by the previous one (the holder that
  // became free last), so no early rank waits for the latest.
  const int p = 12;
  GeneratorInput in = input_for(p, 1, 0);
  in.arrivals.assign(static_cast<size_t>(p), 0.0);
  for (int i = 1; i <= 3; ++i) in.arrivals[p - i] = 20.0 * i * whole_message(in);
  const ArrivalBcastPlan plan = arrival_bcast_plan(in);
  ASSERT_EQ(plan.serves.size(), 3u);
  EXPECT_EQ(plan.serves[0].to, p - 1);
  EXPECT_GE(plan.virt[plan.serves[0].from], 0);
  // Served by a pair that just finished (the earlier late rank or its server), not by an early
  // rank idle since the circulant ended.
  EXPECT_TRUE(plan.serves[1].from == p - 1 || plan.serves[1].from == plan.serves[0].from);
  EXPECT_TRUE(plan.serves[2].from == p - 2 || plan.serves[2].from == plan.serves[1].from);
}

TEST(ArrivalAllgatherv, VerifiesForEveryPAndRandomPatterns) {
  const AlgorithmInfo& a = row(Collective::allgatherv, "arrival-aware");
  std::mt19937_64 rng(23);
  for (int p = 1; p <= 64; ++p)
    for (int trial = 0; trial < 6; ++trial) {
      // n blocks per rank, or a count that is no multiple of p (origins with fewer blocks).
      const int blocks = trial % 3 == 2 ? std::max(1, p + 1 + trial) : p * (1 + trial % 3);
      GeneratorInput in = input_for(p, blocks, -1);
      const int kind = trial % 5;
      in.arrivals = pattern_of_kind(kind, p, -1, whole_message(in), rng);
      const VerifyResult v = verify_schedule(generate_schedule(a, in));
      ASSERT_TRUE(v.ok) << "p=" << p << " blocks=" << blocks << " pattern " << kind << ": "
                        << v.error;
    }
}

TEST(ArrivalAllgatherv, NobodyLateIsTheCirculantAllgatherv) {
  const AlgorithmInfo& a = row(Collective::allgatherv, "arrival-aware");
  const AlgorithmInfo& c = row(Collective::allgatherv, "circulant");
  for (int p = 1; p <= 40; ++p)
    for (int blocks : {p, 3 * p, p + 2}) {
      GeneratorInput in = input_for(p, blocks, -1);
      EXPECT_EQ(generate_schedule(a, in).ranks, generate_schedule(c, in).ranks) << p;
      in.arrivals.assign(static_cast<size_t>(p), 1.5);
      EXPECT_EQ(generate_schedule(a, in).ranks, generate_schedule(c, in).ranks) << p;
    }
}

TEST(ArrivalAllgatherv, OneLateRankBroadcastsItsPortionAndGetsTheRestInOneMessage) {
  const AlgorithmInfo& a = row(Collective::allgatherv, "arrival-aware");
  // (At p = 3 the model keeps everyone early: the holder's wait for the late rank costs a third
  // of the mean there.)
  for (int p : {5, 16, 48}) {
    const int n = 3;
    GeneratorInput in = input_for(p, p * n, -1);
    in.arrivals.assign(static_cast<size_t>(p), 0.0);
    in.arrivals[2] = 40 * whole_message(in);
    const ArrivalAllgathervPlan plan = arrival_allgatherv_plan(in);
    ASSERT_EQ(plan.early, p - 1) << p;
    ASSERT_EQ(plan.waves.size(), 1u);
    const Schedule s = generate_schedule(a, in);
    ASSERT_TRUE(verify_schedule(s).ok);
    const RankSchedule& late = s.ranks[2];
    int recvs = 0;
    for (const Op& op : late.ops) {
      if (op.kind != OpKind::recv) {
        // Only its own portion goes out from it.
        EXPECT_TRUE(op.blocks.front() >= 2 * n && op.blocks.back() < 3 * n) << p;
        continue;
      }
      ++recvs;
      BlockSet others = BlockSet::range(0, 2 * n);
      others.append_range(3 * n, p * n);
      EXPECT_EQ(op.blocks, others) << p;
    }
    EXPECT_EQ(recvs, 1) << p;
  }
}

TEST(ArrivalAllgatherv, AWaveOfLateRanksGetsDistinctHolders) {
  const int p = 32;
  GeneratorInput in = input_for(p, p * 2, -1);
  in.arrivals.assign(static_cast<size_t>(p), 0.0);
  for (int r : {3, 9, 20, 31}) in.arrivals[r] = 50 * whole_message(in);
  const ArrivalAllgathervPlan plan = arrival_allgatherv_plan(in);
  ASSERT_EQ(plan.early, p - 4);
  ASSERT_EQ(plan.waves.size(), 1u);
  const ArrivalAllgathervPlan::Wave& w = plan.waves[0];
  std::set<int> holders;
  for (int i = 0; i < w.last - w.first; ++i)
    holders.insert(ArrivalAllgathervPlan::holder(w, plan.early, i));
  EXPECT_EQ(holders.size(), 4u);
  EXPECT_EQ(w.turns, 1);
}

// auto (selection.hpp): the circulant schedules unless the arrivals are imbalanced and the
// arrival-aware row is predicted to pay.
const AlgorithmInfo* auto_bcast(GeneratorInput in) {
  const PrepareInput prepare = [](const AlgorithmInfo& a, GeneratorInput* g) {
    g->blocks = default_block_count(a, *g);
    if (!a.uses_arrivals) g->arrivals.clear();
  };
  return choose_bcast(in, prepare);
}

TEST(ArrivalAuto, BcastStaysCirculantWithoutImbalance) {
  GeneratorInput in = input_for(48, 1, 0);
  in.bytes = 4 << 20;
  EXPECT_STREQ(auto_bcast(in)->name, "circulant");  // no arrivals
  in.arrivals.assign(48, 0.0);
  EXPECT_STREQ(auto_bcast(in)->name, "circulant");  // balanced
  in.arrivals[1] = 0.5 * whole_message(in);         // less than one message
  EXPECT_STREQ(auto_bcast(in)->name, "circulant");
  in.arrivals[1] = 0;
  in.arrivals[0] = 0.5;  // only the root late: nothing to gain
  EXPECT_STREQ(auto_bcast(in)->name, "circulant");
  in.arrivals[0] = 0;
  in.arrivals[1] = 20e-3;  // 20 ms at 4 MiB over 1 Gbit/s: under one message (33.5 ms)
  in.cost.alpha = 22e-6;
  EXPECT_STREQ(auto_bcast(in)->name, "circulant");
}

// Balanced, the circulant broadcast only where the cost model predicts it 10 % faster than the
// MPI library's usual broadcasts (no tax on small balanced broadcasts, docs/intercept.md).
TEST(ArrivalAuto, BalancedBcastGoesToTheLibraryUnlessTheCirculantPays) {
  GeneratorInput in = input_for(4, 1, 0);
  in.bytes = 8;
  EXPECT_EQ(auto_bcast(in), nullptr);  // two rounds of alpha either way: the MPI library
  in.bytes = 1024;
  EXPECT_EQ(auto_bcast(in), nullptr);
  in.bytes = 16 << 20;  // 1.5 n beta (scatter + all-gather) against about n beta
  EXPECT_STREQ(auto_bcast(in)->name, "circulant");
  GeneratorInput many = input_for(1024, 1, 0);
  many.bytes = 16384;
  many.cost.alpha = 22e-6;
  many.cost.beta = 8e-9;
  EXPECT_STREQ(auto_bcast(many)->name, "circulant");  // 10 x (alpha + n beta) for the tree
  EXPECT_GT(library_bcast_time(many, MpiLibrary::generic), 1.4e-3);
}

TEST(ArrivalAuto, BcastTakesTheArrivalAwareRowForOneLateRank) {
  // (48 ranks, 4 MiB, 20 ms would be below one whole-buffer message on these links: balanced.)
  for (auto [p, bytes, delay] : {std::tuple{1024, 16384.0, 5e-3}, std::tuple{48, 4194304.0, 0.2},
                                 std::tuple{4, 1048576.0, 20e-3}}) {
    GeneratorInput in = input_for(p, 1, 0);
    in.bytes = bytes;
    in.cost.alpha = 22e-6;
    in.arrivals.assign(static_cast<size_t>(p), 0.0);
    in.arrivals[1] = delay;
    EXPECT_STREQ(auto_bcast(in)->name, "arrival-aware") << p;
  }
}

TEST(ArrivalAuto, AllgathervTakesTheArrivalAwareRowOffNodeOnly) {
  const PrepareInput prepare = [](const AlgorithmInfo& a, GeneratorInput* g) {
    g->blocks = default_block_count(a, *g);
    if (!a.uses_arrivals) g->arrivals.clear();
  };
  GeneratorInput in = input_for(48, 48, -1);
  in.bytes = 4 << 20;
  in.cost.alpha = 22e-6;
  EXPECT_STREQ(choose_allgatherv(in, false, prepare)->name, "circulant");
  in.arrivals.assign(48, 0.0);
  EXPECT_STREQ(choose_allgatherv(in, false, prepare)->name, "circulant");
  in.arrivals[1] = 20e-3;
  EXPECT_STREQ(choose_allgatherv(in, false, prepare)->name, "arrival-aware");
  EXPECT_STREQ(choose_allgatherv(in, true, prepare)->name, "linear");
}

}  // namespace
}  // namespace papcoll
