// The contract every registered generator keeps (registry.hpp, schedule_sink.hpp), checked for
// every row of the table, so a new algorithm is covered by adding its row:
//  - its whole schedule verifies symbolically for p = 1..64 with random arrivals, roots, block
//    counts and (scatterv/gatherv) portion sizes;
//  - each rank's part generated alone equals that rank's part of the whole schedule;
//  - the same input gives the same schedule;
//  - for sampled p up to 4096, sampled ranks and their peers generated alone agree on every
//    message (the sends of one are the receives of the other, round for round, block for block),
//    and for p up to 257 the whole schedule verifies;
//  - an arrival-aware generator reads the arrivals only through its arrival key: a pattern with the
//    same key gives the same schedule;
//  - with cost.shared_memory set (one node) the schedules verify too, and a row marked one_version
//    (and every all-gatherv) sends each block with one content on every rank, what the
//    shared-memory transport relies on; an unmarked reduce does not somewhere.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "schedule/registry.hpp"
#include "verify/verifier.hpp"

namespace papcoll {
namespace {

std::string row_param_name(const ::testing::TestParamInfo<const AlgorithmInfo*>& i) {
  std::string n = std::string(collective_name(i.param->collective)) + "_" + i.param->name;
  for (char& c : n)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

bool rooted(Collective c) { return c != Collective::allreduce && c != Collective::allgatherv; }

// A random input for `algo` at p: a random root, a random arrival pattern (some ranks late by up to
// 3p block times, some at 0), `blocks` blocks (0: the row's default; per rank for allgatherv) and,
// for scatterv/gatherv, random portions (some empty).
GeneratorInput random_input(const AlgorithmInfo& algo, int p, int blocks, std::mt19937_64& rng) {
  GeneratorInput in;
  in.p = p;
  in.bytes = 1 << 20;
  in.root = rooted(algo.collective) ? static_cast<int>(rng() % static_cast<uint64_t>(p)) : -1;
  const int per_rank = blocks > 0 ? blocks : 1 + static_cast<int>(rng() % 3);
  if (algo.collective == Collective::allgatherv)
    in.blocks = p * per_rank;
  else
    in.blocks = blocks > 0 ? blocks : default_blocks_for(algo, p);
  if (algo.collective == Collective::scatterv || algo.collective == Collective::gatherv) {
    in.counts.resize(static_cast<size_t>(p));
    for (long long& c : in.counts) c = rng() % 5 == 0 ? 0 : static_cast<long long>(rng() % 1000);
    in.elem_bytes = 4;
  }
  const double tau = block_round_time(in);
  std::uniform_real_distribution<double> late(0, 3.0 * p * tau);
  in.arrivals.resize(static_cast<size_t>(p));
  for (double& a : in.arrivals) a = rng() % 4 == 0 ? 0.0 : late(rng);
  return in;
}

// The messages from `from` to `to` as `from` sees them (its sends) or `to` sees them (its
// receives): (round, blocks) in op order.
using Messages = std::vector<std::pair<int64_t, std::vector<int>>>;
Messages messages(const RankSchedule& rs, int peer, OpKind kind) {
  Messages m;
  for (const Step& st : rs.steps)
    for (const Op& op : rs.ops_of(st))
      if (op.peer == peer && op.kind == kind) m.push_back({st.round, op.blocks.ids()});
  return m;
}

class RegistryContract : public ::testing::TestWithParam<const AlgorithmInfo*> {};

TEST_P(RegistryContract, WholeVerifiesAndEveryRankAloneEqualsItsPart) {
  const AlgorithmInfo& algo = *GetParam();
  std::mt19937_64 rng(20261125);
  for (int p = 1; p <= 64; ++p) {
    const GeneratorInput in = random_input(algo, p, 0, rng);
    const Schedule whole = generate_schedule(algo, in);
    const VerifyResult v = verify_schedule(whole);
    ASSERT_TRUE(v.ok) << algo.name << " p=" << p << " blocks=" << in.blocks << ": " << v.error;
    ASSERT_EQ(whole.blocks, schedule_blocks(algo, in));
    for (int r = 0; r < p; ++r)
      ASSERT_EQ(generate_rank(algo, in, r), whole.ranks[r])
          << algo.name << " p=" << p << " rank " << r;
  }
}

TEST_P(RegistryContract, OneVersionWhereMarked) {
  const AlgorithmInfo& algo = *GetParam();
  const bool marked = algo.one_version || algo.collective == Collective::allgatherv;
  std::mt19937_64 rng(20261126);
  int violations = 0;
  for (int p = 1; p <= 64; ++p)
    for (int blocks : {0, 1, 3, 2 * p + 1}) {
      GeneratorInput in = random_input(algo, p, blocks, rng);
      in.cost.shared_memory = true;  // as when the transport carries the call
      const Schedule whole = generate_schedule(algo, in);
      const VerifyResult v = verify_schedule(whole);
      ASSERT_TRUE(v.ok) << algo.name << " (one node) p=" << p << ": " << v.error;
      for (int r = 0; r < p; ++r) {
        ASSERT_EQ(generate_rank(algo, in, r), whole.ranks[r]) << algo.name << " (one node) p=" << p;
        if (one_version_schedule(whole.ranks[r])) continue;
        ++violations;
        ASSERT_FALSE(marked) << algo.name << " p=" << p << " blocks=" << in.blocks << " rank " << r
                             << ": a block sent again after a receive into it";
      }
    }
  // A composed row (two-level) is one-version exactly when the rows it runs are; not marked.
  if (algo.collective == Collective::reduce && !marked && !algo.topology_aware) {
    EXPECT_GT(violations, 0) << algo.name << " is one-version for every input tried: mark it";
  }
}

TEST_P(RegistryContract, ManyBlockCountsVerify) {
  const AlgorithmInfo& algo = *GetParam();
  std::mt19937_64 rng(7);
  for (int p : {2, 3, 5, 8, 13, 17})
    for (int blocks : {1, 2, p - 1, p + 1, 2 * p + 3}) {
      if (blocks < 1) continue;
      const GeneratorInput in = random_input(algo, p, blocks, rng);
      const VerifyResult v = verify_schedule(generate_schedule(algo, in));
      ASSERT_TRUE(v.ok) << algo.name << " p=" << p << " blocks=" << blocks << ": " << v.error;
    }
}

TEST_P(RegistryContract, SameInputSameSchedule) {
  const AlgorithmInfo& algo = *GetParam();
  std::mt19937_64 rng(3);
  const GeneratorInput in = random_input(algo, 13, 0, rng);
  EXPECT_EQ(generate_schedule(algo, in).ranks, generate_schedule(algo, in).ranks);
}

TEST_P(RegistryContract, LargePRanksAgreeWithTheirPeers) {
  const AlgorithmInfo& algo = *GetParam();
  std::mt19937_64 rng(11);
  for (int p : {100, 128, 257, 1000, 1024, 4096}) {
    if (algo.uses_arrivals && std::string(algo.name) == "clairvoyant" && p > 1024) continue;
    const GeneratorInput in = random_input(algo, p, 8, rng);
    if (p <= 257) {
      const VerifyResult v = verify_schedule(generate_schedule(algo, in));
      ASSERT_TRUE(v.ok) << algo.name << " p=" << p << ": " << v.error;
    }
    std::map<int, RankSchedule> alone;
    auto rank = [&](int r) -> const RankSchedule& {
      auto it = alone.find(r);
      if (it == alone.end()) it = alone.emplace(r, generate_rank(algo, in, r)).first;
      return it->second;
    };
    for (int r : {0, 1, p / 2, p - 1, static_cast<int>(rng() % static_cast<uint64_t>(p))}) {
      std::vector<int> peers;
      for (const Op& op : rank(r).ops) peers.push_back(op.peer);
      std::sort(peers.begin(), peers.end());
      peers.erase(std::unique(peers.begin(), peers.end()), peers.end());
      if (peers.size() > 8) peers.resize(8);
      for (int q : peers) {
        ASSERT_EQ(messages(rank(r), q, OpKind::send), messages(rank(q), r, OpKind::recv))
            << algo.name << " p=" << p << ": " << r << " -> " << q;
        ASSERT_EQ(messages(rank(r), q, OpKind::recv), messages(rank(q), r, OpKind::send))
            << algo.name << " p=" << p << ": " << q << " -> " << r;
      }
    }
  }
}

TEST_P(RegistryContract, ArrivalsEnterOnlyThroughTheKey) {
  const AlgorithmInfo& algo = *GetParam();
  if (!algo.uses_arrivals) {
    EXPECT_EQ(algo.arrival_key, nullptr) << "a key without arrivals to quantise";
    return;
  }
  ASSERT_NE(algo.arrival_key, nullptr) << "an arrival-aware row needs its arrival key";
  std::mt19937_64 rng(5);
  int same = 0, different = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const int p = 2 + static_cast<int>(rng() % 30);
    GeneratorInput a = random_input(algo, p, 0, rng);
    GeneratorInput b = a;
    // Nudge every arrival by up to a hundredth of a block time: most keys stay, some move.
    std::uniform_real_distribution<double> nudge(-0.01, 0.01);
    const double tau = block_round_time(a);
    for (double& x : b.arrivals) x += nudge(rng) * tau;
    if (algo.arrival_key(a) == algo.arrival_key(b)) {
      ++same;
      ASSERT_EQ(generate_schedule(algo, a).ranks, generate_schedule(algo, b).ranks)
          << algo.name << ": equal keys, different schedules (p=" << p << ")";
    } else {
      ++different;
    }
  }
  EXPECT_GT(same, 0);
}

INSTANTIATE_TEST_SUITE_P(All, RegistryContract, ::testing::ValuesIn([] {
                           std::vector<const AlgorithmInfo*> v;
                           for (const AlgorithmInfo& a : all_algorithms()) v.push_back(&a);
                           return v;
                         }()),
                         row_param_name);

}  // namespace
}  // namespace papcoll
