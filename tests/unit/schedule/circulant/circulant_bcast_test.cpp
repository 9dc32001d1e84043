// The broadcast generators in the common representation, run through the symbolic verifier:
// circulant (Träff's Algorithm 1) and the baselines binomial, scatter-allgather and chain, for
// p = 1..64 and n = 1..20 blocks with several roots, plus larger cases; and the properties that
// make circulant interesting (n - 1 + q rounds, one block per message, any root).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "schedule/bcast_generators.hpp"
#include "schedule/registry.hpp"
#include "verify/verifier.hpp"

namespace papcoll {
namespace {

Schedule bcast_schedule(const char* name, int p, int blocks, int root) {
  GeneratorInput in;
  in.p = p;
  in.blocks = blocks;
  in.root = root;
  const AlgorithmInfo* a = find_algorithm(Collective::bcast, name);
  EXPECT_NE(a, nullptr) << name;
  return generate_schedule(*a, in);
}

int ceil_log2(int p) {
  int q = 0;
  while ((1 << q) < p) ++q;
  return q;
}

int64_t last_round(const Schedule& s) {
  int64_t last = -1;
  for (const RankSchedule& r : s.ranks)
    if (!r.steps.empty()) last = std::max(last, r.steps.back().round);
  return last;
}

TEST(CirculantBcast, VerifiesForSmallPAndBlocks) {
  for (int p = 1; p <= 64; ++p)
    for (int n = 1; n <= 20; ++n)
      for (int root : {0, (n * 7) % p}) {
        const Schedule s = bcast_schedule("circulant", p, n, root);
        const VerifyResult v = verify_schedule(s);
        ASSERT_TRUE(v.ok) << "p=" << p << " n=" << n << " root=" << root << ": " << v.error;
        // Round-optimal: n - 1 + ceil(log2 p) rounds (none for p = 1).
        EXPECT_EQ(last_round(s) + 1, p == 1 ? 0 : n - 1 + ceil_log2(p)) << p << ' ' << n;
      }
}

TEST(CirculantBcast, VerifiesLarger) {
  for (int p : {100, 127, 128, 129, 255, 256, 257, 1000})
    for (int n : {1, 2, 7, 33, 100}) {
      if (p * n > 40000) continue;  // the verifier's time grows with p * n * p
      const VerifyResult v = verify_schedule(bcast_schedule("circulant", p, n, p / 3));
      ASSERT_TRUE(v.ok) << "p=" << p << " n=" << n << ": " << v.error;
    }
}

TEST(CirculantBcast, OneBlockPerMessageOneSendOneReceivePerRound) {
  const Schedule s = bcast_schedule("circulant", 17, 12, 5);
  for (const RankSchedule& r : s.ranks)
    for (const Step& st : r.steps) {
      int sends = 0, recvs = 0;
      for (const Op& op : r.ops_of(st)) {
        EXPECT_EQ(op.blocks.size(), 1);
        (op.kind == OpKind::send ? sends : recvs)++;
      }
      EXPECT_LE(sends, 1);
      EXPECT_LE(recvs, 1);
      if (r.rank == 5) {
        EXPECT_EQ(recvs, 0) << "nothing is sent to the root";
      }
    }
}

// Every send paced (docs/algorithms.md, "Paced sends"): the root, which receives nothing, would
// otherwise post all its rounds' sends at once, on one link. Synchronous from alpha / beta bytes.
TEST(CirculantBcast, EverySendPaced) {
  const Schedule s = bcast_schedule("circulant", 17, 12, 5);
  for (const RankSchedule& r : s.ranks) {
    for (const Op& op : r.ops) EXPECT_EQ(op.paced, op.kind == OpKind::send) << r.rank;
    EXPECT_EQ(r.paced_bytes, paced_send_bytes(CostParams{})) << r.rank;
  }
}

// Capping blocks above n - 1 only renames each rank's last-phase baseblock (the one value >= 0 of
// that phase, which lands exactly on n - 1): every rank other than the root receives each block
// exactly once, and never sends and receives in a step the same block.
TEST(CirculantBcast, EveryBlockArrivesExactlyOnce) {
  for (int p = 2; p <= 64; ++p)
    for (int n = 1; n <= 20; ++n) {
      const Schedule s = bcast_schedule("circulant", p, n, p / 2);
      for (const RankSchedule& r : s.ranks) {
        std::vector<int> got(static_cast<size_t>(n), 0);
        for (const Step& st : r.steps) {
          int sent = -1, received = -2;
          for (const Op& op : r.ops_of(st))
            (op.kind == OpKind::send ? sent : received) = op.blocks.front();
          if (received >= 0) ++got[received];
          EXPECT_NE(sent, received) << "p=" << p << " n=" << n << " rank " << r.rank;
        }
        for (int blk = 0; blk < n; ++blk)
          ASSERT_EQ(got[blk], r.rank == p / 2 ? 0 : 1)
              << "p=" << p << " n=" << n << " rank " << r.rank << " block " << blk;
      }
    }
}

TEST(CirculantBcast, TwoRanksIsAPipeline) {
  const Schedule s = bcast_schedule("circulant", 2, 4, 1);
  ASSERT_EQ(s.ranks[1].steps.size(), 4u);
  for (int t = 0; t < 4; ++t) {
    const Step& st = s.ranks[1].steps[t];
    const auto ops = s.ranks[1].ops_of(st);
    EXPECT_EQ(st.round, t);
    ASSERT_EQ(ops.size(), 1u);
    EXPECT_EQ(ops[0].kind, OpKind::send);
    EXPECT_EQ(ops[0].peer, 0);
    EXPECT_EQ(ops[0].blocks.ids(), std::vector<int>{t});
  }
}

TEST(BcastBaselines, Verify) {
  for (const char* name : {"binomial", "scatter-allgather", "chain"})
    for (int p = 1; p <= 40; ++p)
      for (int n : {1, 2, 3, 5, 8, 13, 20, 64})
        for (int root : {0, p - 1, p / 2}) {
          const VerifyResult v = verify_schedule(bcast_schedule(name, p, n, root));
          ASSERT_TRUE(v.ok) << name << " p=" << p << " n=" << n << " root=" << root << ": "
                            << v.error;
        }
}

TEST(BcastBaselines, RoundCounts) {
  EXPECT_EQ(last_round(bcast_schedule("binomial", 16, 1, 0)) + 1, 4);  // whole message: log2 p
  EXPECT_EQ(last_round(bcast_schedule("binomial", 17, 1, 3)) + 1, 5);
  EXPECT_EQ(last_round(bcast_schedule("chain", 10, 6, 0)) + 1, 10 - 2 + 6);
  EXPECT_EQ(last_round(bcast_schedule("scatter-allgather", 8, 8, 0)) + 1, 3 + 7);
}

TEST(BcastBaselines, DefaultRootIsZero) {
  EXPECT_EQ(bcast_schedule("circulant", 5, 3, -1).root, 0);
  EXPECT_TRUE(verify_schedule(bcast_schedule("circulant", 5, 3, -1)).ok);
}

// The block-count rule (registry.hpp): the Hockney optimum sqrt(extra * beta * m / alpha) times
// kPipelineBlockFactor, growing with the message, and one block when ranks share cores.
TEST(PipelineBlocks, HockneyOptimumAndSharedCores) {
  CostParams c;
  c.alpha = 1e-6;
  c.beta = 1e-9;
  const double m = 4.0 * (1 << 20);
  const int n = pipeline_blocks(m, 3, c);
  EXPECT_EQ(n, std::max(1, static_cast<int>(std::llround(kPipelineBlockFactor *
                                                         std::sqrt(3 * c.beta * m / c.alpha)))));
  EXPECT_GT(n, 1);
  EXPECT_LE(pipeline_blocks(m / 16, 3, c), n);
  EXPECT_EQ(pipeline_blocks(m, 0, c), 1);  // nothing to pipeline over
  EXPECT_EQ(pipeline_blocks(0, 3, c), 1);
  c.cores_shared = true;
  EXPECT_EQ(pipeline_blocks(m, 3, c), 1);
  EXPECT_EQ(pipeline_blocks(m * 1024, 30, c), 1);
}

}  // namespace
}  // namespace papcoll
