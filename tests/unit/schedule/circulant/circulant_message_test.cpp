// The all-gatherv's rule-named messages (circulant_message.hpp): the two facts of the receive
// schedules that make a message's emptiness closed-form, the rule against the listing every
// position's receive schedule gives (the generator's earlier, O(p log p) form, kept here as the
// reference), and the laziness of a rule's set.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include "schedule/allgatherv_generators.hpp"
#include "schedule/circulant/circulant_group.hpp"
#include "schedule/circulant/circulant_message.hpp"
#include "schedule/circulant/circulant_recv.hpp"
#include "schedule/circulant/circulant_tables.hpp"
#include "schedule/registry.hpp"
#include "schedule/schedule_sink.hpp"
#include "verify/verifier.hpp"

namespace papcoll {
namespace {

// Column k of the table has maximum k over v != 0, and its non-negative values are exactly at
// v in [skip[k], skip[k+1]).
void expect_column_facts(int p) {
  const circulant::Skips sk = circulant::make_skips(p);
  const circulant::RecvTable table(p);
  ASSERT_EQ(table.q(), sk.q);
  for (int k = 0; k < sk.q; ++k) {
    const int8_t* col = table.column(k);
    EXPECT_EQ(*std::max_element(col + 1, col + p), k) << "p=" << p << " k=" << k;
    for (int v = 0; v < p; ++v)
      ASSERT_EQ(col[v] >= 0, v >= sk.skip[k] && v < sk.skip[k + 1])
          << "p=" << p << " k=" << k << " v=" << v;
  }
}

TEST(CirculantMessage, ColumnFactsHoldForEveryPUpTo2048) {
  for (int p = 2; p <= 2048; ++p) expect_column_facts(p);
}

TEST(CirculantMessage, ColumnFactsHoldAtSampledLargeP) {
  for (int p : {4095, 4096, 4097, 6000, 10007, 16384, 65535, 65536, 65537, 100003})
    expect_column_facts(p);
}

TEST(CirculantMessage, TableEqualsTheReceiveSchedules) {
  for (int p : {2, 3, 17, 100, 1000}) {
    const circulant::Skips sk = circulant::make_skips(p);
    const auto table = circulant::recv_table(p);
    EXPECT_EQ(table, circulant::recv_table(p)) << "kept, not rebuilt";
    int row[circulant::kMaxQ];
    for (int v = 0; v < p; ++v) {
      circulant::recv_schedule(sk, v, row);
      for (int k = 0; k < sk.q; ++k) ASSERT_EQ(table->column(k)[v], row[k]) << p << " " << v;
    }
  }
}

// The circulant all-gatherv as it was generated before messages were rules: every position's
// receive schedule (recv, p rows of q), every origin's block listed (Algorithm 2 read literally).
RankSchedule listed_rank(int p, int blocks, int r, const std::vector<int>& recv) {
  RankSchedule rs;
  rs.rank = r;
  if (p == 1) return rs;
  const circulant::Skips sk = circulant::make_skips(p);
  const int q = sk.q, n = (blocks + p - 1) / p;
  auto global = [&](int o, int j) {
    const int first = origin_first_block(blocks, p, o);
    const int count = origin_first_block(blocks, p, o + 1) - first;
    return count == 0 ? -1 : first + std::min(j, count - 1);
  };
  for (int t = 0; t < circulant::real_rounds(q, n); ++t) {
    const circulant::Round rd = circulant::round_of(q, n, t);
    const int to = (r + sk.skip[rd.k]) % p, from = (r - sk.skip[rd.k] + p) % p;
    BlockSet sent, got;
    for (int o = 0; o < p; ++o) {
      const int js = recv[static_cast<size_t>((to - o + p) % p) * q + rd.k] + rd.offset;
      if (o != to && js >= 0 && global(o, js) >= 0) sent.append(global(o, js));
      const int jr = recv[static_cast<size_t>((r - o + p) % p) * q + rd.k] + rd.offset;
      if (o != r && jr >= 0 && global(o, jr) >= 0) got.append(global(o, jr));
    }
    if (!sent.empty()) rs.add(t, Op{OpKind::send, to, sent, Combine::none});
    if (!got.empty()) rs.add(t, Op{OpKind::recv, from, got, Combine::copy});
  }
  return rs;
}

std::vector<int> every_receive_schedule(int p) {
  const circulant::Skips sk = circulant::make_skips(p);
  std::vector<int> recv(static_cast<size_t>(p) * sk.q);
  for (int v = 0; v < p; ++v) circulant::recv_schedule(sk, v, &recv[static_cast<size_t>(v) * sk.q]);
  return recv;
}

Schedule listed_circulant_allgatherv(int p, int blocks) {
  Schedule s;
  s.collective = Collective::allgatherv;
  s.p = p;
  s.blocks = blocks;
  const std::vector<int> recv = every_receive_schedule(p);
  for (int r = 0; r < p; ++r) s.ranks.push_back(listed_rank(p, blocks, r, recv));
  return s;
}

Schedule circulant_allgatherv(int p, int blocks) {
  GeneratorInput in;
  in.p = p;
  in.blocks = blocks;
  return generate_schedule(*find_algorithm(Collective::allgatherv, "circulant"), in);
}

void expect_listed_form(int p, int blocks) {
  const Schedule listed = listed_circulant_allgatherv(p, blocks);
  const Schedule ruled = circulant_allgatherv(p, blocks);
  ASSERT_EQ(ruled.ranks.size(), listed.ranks.size());
  for (int r = 0; r < p; ++r) {
    const RankSchedule& a = ruled.ranks[static_cast<size_t>(r)];
    const RankSchedule& b = listed.ranks[static_cast<size_t>(r)];
    ASSERT_EQ(a.steps, b.steps) << "p=" << p << " B=" << blocks << " rank " << r;
    for (size_t i = 0; i < a.ops.size(); ++i)
      ASSERT_EQ(a.ops[i], b.ops[i]) << "p=" << p << " B=" << blocks << " rank " << r << " op " << i;
  }
}

TEST(CirculantMessage, RulesListWhatEveryPositionsScheduleLists) {
  for (int p = 1; p <= 40; ++p)
    for (int blocks : {1, p - 1, p, p + 1, 2 * p, 3 * p - 1, 5 * p, 7 * p + 3}) {
      if (blocks < 1) continue;
      expect_listed_form(p, blocks);
    }
  for (int p : {64, 100, 127, 257})
    for (int blocks : {p / 3, p, 2 * p, 4 * p + 5}) expect_listed_form(p, blocks);
}

TEST(CirculantMessage, RulesListWhatEveryPositionsScheduleListsAtSampledLargeP) {
  for (int p : {1000, 4096, 4097}) {
    const std::vector<int> recv = every_receive_schedule(p);
    for (int blocks : {p / 2, p, 3 * p, 2 * p + 7})
      for (int r : {0, 1, p / 2 + 1, p - 1}) {
        GeneratorInput in;
        in.p = p;
        in.blocks = blocks;
        const RankSchedule ruled =
            generate_rank(*find_algorithm(Collective::allgatherv, "circulant"), in, r);
        const RankSchedule listed = listed_rank(p, blocks, r, recv);
        ASSERT_EQ(ruled.steps, listed.steps) << "p=" << p << " B=" << blocks << " rank " << r;
        for (size_t i = 0; i < ruled.ops.size(); ++i)
          ASSERT_EQ(ruled.ops[i], listed.ops[i]) << "p=" << p << " B=" << blocks << " r=" << r;
      }
  }
}

TEST(CirculantMessage, OneRankAtAMillionRanksIsRoundsOfRules) {
  // p = 2^20, n = 64 (the size docs/papcoll-sched.md times): 2 (n - 1 + q) ops, none listed by
  // generating them.
  const int p = 1 << 20, n = 64;
  GeneratorInput in;
  in.p = p;
  in.blocks = p * n;
  const RankSchedule rs =
      generate_rank(*find_algorithm(Collective::allgatherv, "circulant"), in, p / 2 + 1);
  EXPECT_EQ(rs.ops.size(), 2u * (n - 1 + 20));
  for (const Op& op : rs.ops) EXPECT_TRUE(op.blocks.named_by_rule());
}

TEST(CirculantMessage, AMiddleRoundCarriesABlockOfEveryOtherOrigin) {
  const int p = 5000, n = 40;
  GeneratorInput in;
  in.p = p;
  in.blocks = p * n;
  const RankSchedule rs =
      generate_rank(*find_algorithm(Collective::allgatherv, "circulant"), in, 1234);
  const int q = circulant::make_skips(p).q;
  const Op& op = rs.ops[2 * static_cast<size_t>(q + 2)];  // round q + 2: offsets >= 0 from here
  EXPECT_EQ(op.blocks.size(), p - 1);
}

// A group whose every member is an origin (the arrival-aware all-gatherv's early stage): the
// rule-named messages equal the per-origin schedules' (the path taken when ids need sorting).
TEST(CirculantMessage, GroupRulesListWhatEachOriginsSchedulesList) {
  for (int g = 2; g <= 40; ++g)
    for (int split : {1, 2, 3, 5, 8}) {  // B = split g - 1 over 2g ranks: n = 1, 1, 2, 3, 4
      const int p = 2 * g, blocks = std::max(1, split * g - 1);
      std::vector<int> members(static_cast<size_t>(g));
      for (int v = 0; v < g; ++v) members[static_cast<size_t>(v)] = 2 * v + (v % 3 == 0);
      std::vector<circulant::GroupOrigin> origins;
      for (int v = 0; v < g; ++v) {
        const BlockSet own = origin_blocks(blocks, p, members[static_cast<size_t>(v)]);
        origins.push_back({v, own.empty() ? BlockRun{0, 0} : own.runs().front()});
      }
      for (int v = 0; v < g; ++v) {
        const int r = members[static_cast<size_t>(v)];
        ScheduleSink ruled(p, r, r + 1), listed(p, r, r + 1);
        circulant::emit_group(members, v, origins, 3, true, ruled);
        circulant::emit_group(members, v, origins, 3, false, listed);
        const std::vector<RankSchedule> a = std::move(ruled).take(), b = std::move(listed).take();
        ASSERT_EQ(a[0].steps, b[0].steps) << "g=" << g << " B=" << blocks << " v=" << v;
        for (size_t i = 0; i < a[0].ops.size(); ++i)
          ASSERT_EQ(a[0].ops[i], b[0].ops[i]) << "g=" << g << " B=" << blocks << " v=" << v;
      }
    }
}

// A rule that counts its expansions.
class CountingRule final : public BlockRule {
 public:
  CountingRule(std::vector<int> ids, std::atomic<int>* expansions)
      : ids_(std::move(ids)), expansions_(expansions) {}
  void expand(BlockSet& out) const override {
    ++*expansions_;
    for (int b : ids_) out.append(b);
  }
  bool same(const BlockRule& o) const override {
    const auto* c = dynamic_cast<const CountingRule*>(&o);
    return c != nullptr && c->ids_ == ids_;
  }
  int64_t listing_bytes() const override { return 1000; }

 private:
  std::vector<int> ids_;
  std::atomic<int>* expansions_;
};

TEST(BlockRule, ListedOnceOnFirstReadAndSharedByCopies) {
  std::atomic<int> expansions{0};
  const BlockSet a = BlockSet::named_by(
      std::make_shared<CountingRule>(std::vector<int>{1, 2, 3, 7, 9}, &expansions));
  EXPECT_FALSE(a.empty());
  EXPECT_TRUE(a.named_by_rule());
  EXPECT_EQ(expansions, 0);
  const BlockSet b = a;
  EXPECT_EQ(b.size(), 5);
  EXPECT_EQ(expansions, 1);
  EXPECT_EQ(a.ids(), (std::vector<int>{1, 2, 3, 7, 9}));
  EXPECT_EQ(a.runs().size(), 3u);
  EXPECT_TRUE(a.contains(7));
  EXPECT_FALSE(a.contains(8));
  EXPECT_EQ(expansions, 1);
  EXPECT_EQ(a, (BlockSet{1, 2, 3, 7, 9}));
  EXPECT_NE(a, (BlockSet{1, 2, 3, 7}));
  EXPECT_GE(a.heap_bytes(), 1000);
  // The same rule: equal without listing either.
  std::atomic<int> other{0};
  const BlockSet c =
      BlockSet::named_by(std::make_shared<CountingRule>(std::vector<int>{1, 2, 3, 7, 9}, &other));
  EXPECT_EQ(a, c);
  EXPECT_EQ(other, 0);
  BlockSet d = a;
  EXPECT_THROW(d.append(20), std::logic_error);
  EXPECT_THROW(BlockSet::named_by(nullptr), std::logic_error);
}

TEST(BlockRule, ARuleNamingNothingIsAnError) {
  std::atomic<int> expansions{0};
  const BlockSet e =
      BlockSet::named_by(std::make_shared<CountingRule>(std::vector<int>{}, &expansions));
  EXPECT_THROW(e.runs(), std::logic_error);
}

TEST(BlockRule, ReadByManyThreadsListsOnce) {
  std::atomic<int> expansions{0};
  std::vector<int> ids(10000);
  for (int i = 0; i < 10000; ++i) ids[i] = 2 * i;
  const BlockSet a = BlockSet::named_by(std::make_shared<CountingRule>(ids, &expansions));
  std::vector<std::thread> readers;
  std::atomic<int64_t> total{0};
  for (int t = 0; t < 4; ++t) readers.emplace_back([&] { total += a.size(); });
  for (std::thread& t : readers) t.join();
  EXPECT_EQ(total, 40000);
  EXPECT_EQ(expansions, 1);
}

}  // namespace
}  // namespace papcoll
