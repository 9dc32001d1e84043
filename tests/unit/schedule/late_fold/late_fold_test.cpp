// Late-fold all-reduce and reduce (late_fold*.cpp, docs/algorithms.md "late-fold"): the padded
// circulant both phases are built on, the schedules through the symbolic verifier for p = 1..64
// under the arrival patterns they are for, the choice between late-fold and PRR, and the worked
// example of docs/algorithms.md under the cost model.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <string>

#include "schedule/clairvoyant/finish_rounds.hpp"
#include "schedule/late_fold/late_fold.hpp"
#include "schedule/plan_memo.hpp"
#include "schedule/schedule_sink.hpp"
#include "select/selection.hpp"
#include "test_schedules.hpp"
#include "verify/cost_model.hpp"
#include "verify/port_check.hpp"
#include "verify/verifier.hpp"

namespace papcoll {
namespace {

const AlgorithmInfo& algo(Collective c) {
  const AlgorithmInfo* a = find_algorithm(c, "late-fold");
  EXPECT_NE(a, nullptr);
  return *a;
}

TEST(FoldCirculant, RootSendsEveryBlockOnceAndEveryPositionGetsEveryBlockOnce) {
  for (int m = 2; m <= 70; ++m)
    for (int n : {1, 2, 3, 5, 8, 13, 31, 64}) {
      const FoldCirculant c(m, n);
      for (int v = 0; v < m; ++v) {
        const auto ts = c.transfers(v);
        std::vector<int> got(static_cast<size_t>(n), 0);
        std::vector<int> held(static_cast<size_t>(n), v == 0 ? 0 : -1);  // round since held
        int first = -1, last = -1;
        const FoldCirculant::Timing tm = c.timing(v);
        for (const auto& t : ts) {
          ASSERT_LT(t.round, c.rounds());
          ASSERT_NE(t.peer, v);
          if (first < 0) first = t.round;
          last = std::max(last, t.round);
          if (t.send) {
            ASSERT_NE(t.peer, 0) << "nothing is sent to the root";
            ASSERT_TRUE(held[t.block] >= 0 && held[t.block] <= t.round)
                << "m=" << m << " n=" << n << " v=" << v << " sends block " << t.block
                << " it does not hold in round " << t.round;
            ASSERT_NE(c.idle_sender(t.round), v) << "the idle sender sends in its round";
            if (v == 0) {
              ASSERT_EQ(t.round, t.block);
              ASSERT_EQ(t.peer, c.owner(t.block));
            }
          } else {
            ++got[t.block];
            held[t.block] = t.round + 1;
            ASSERT_EQ(c.recv_round(tm, t.block), t.round) << "m=" << m << " n=" << n << " v=" << v;
            ASSERT_EQ(t.peer == 0, v == c.owner(t.block));
          }
        }
        for (int b = 0; v != 0 && b < n; ++b)
          ASSERT_EQ(got[b], 1) << "m=" << m << " n=" << n << " v=" << v;
        ASSERT_EQ(tm.first, first) << "m=" << m << " n=" << n << " v=" << v;
        ASSERT_EQ(tm.last, last) << "m=" << m << " n=" << n << " v=" << v;
      }
    }
}

// The kept table of first and last rounds reads as the schedules do, at every shape: all positions
// up to 513, sampled ones above (and any other position computed), whichever shape comes first,
// and after forget_plans.
TEST(FoldCirculant, SpansAreTheTimingsOfEveryPosition) {
  for (int pass = 0; pass < 2; ++pass) {
    for (int m : {2, 3, 17, 64, 512, 513, 514, 700, 1023, 1024, 3000})
      for (int n : {1, 7, 64, 300}) {
        const FoldCirculant c(m, n);
        for (int v = 0; v < m; ++v) {
          const FoldCirculant::Timing tm = c.timing(v);
          const FoldCirculant::Span s = c.span(v);
          ASSERT_EQ(s.first, tm.first) << "m=" << m << " n=" << n << " v=" << v;
          ASSERT_EQ(s.last, tm.last) << "m=" << m << " n=" << n << " v=" << v;
        }
        // Every position's last round up to 513 positions, 256 evenly spaced ones above.
        int last = n - 1;
        const int held = m - 1 <= 512 ? m - 1 : 256;
        for (int i = 0; i < held; ++i)
          last = std::max(last, c.timing(1 + static_cast<int>(int64_t{i} * (m - 1) / held)).last);
        ASSERT_EQ(c.last_real_round(), last) << "m=" << m << " n=" << n;
        // A second object of the same shape reads the kept table.
        ASSERT_EQ(FoldCirculant(m, n).last_real_round(), c.last_real_round());
      }
    forget_plans();
  }
}

GeneratorInput gige_input(const AlgorithmInfo& a, int p, std::vector<double> arrivals,
                          int root = -1) {
  GeneratorInput in;
  in.p = p;
  in.root = root;
  in.bytes = 4.0 * (1 << 20);
  in.cost.alpha = 22e-6;
  in.cost.beta = 8e-9;
  in.cost.gamma = 1e-12;
  in.arrivals = std::move(arrivals);
  in.blocks = default_block_count(a, in);
  return in;
}

// Arrival patterns of papcoll-bench's modes, delay d, the late ranks chosen by `rng`.
std::vector<double> delay_mode_pattern(std::mt19937_64& rng, int p, int kind, double d) {
  std::vector<double> a(static_cast<size_t>(p), 0.0);
  std::vector<int> ranks(static_cast<size_t>(p));
  for (int r = 0; r < p; ++r) ranks[r] = r;
  std::shuffle(ranks.begin(), ranks.end(), rng);
  const int k = 1 + static_cast<int>(rng() % std::max(1, std::min(p - 1, 6)));
  std::uniform_real_distribution<double> u(0, d);
  switch (kind) {
    case 0: a[ranks[0]] = d; break;  // one-late
    case 1:
      for (int i = 0; i < k; ++i) a[ranks[i]] = d;
      break;  // k-late
    case 2:
      for (int i = 0; i < k; ++i) a[ranks[i]] = d * (i + 1) / k;
      break;  // staggered
    default:
      for (double& x : a) x = u(rng);
      break;  // rand-late
  }
  return a;
}

TEST(LateFold, VerifiesUnderEveryDelayModeForPUpTo64) {
  std::mt19937_64 rng(18);
  for (Collective coll : {Collective::allreduce, Collective::reduce}) {
    const AlgorithmInfo& a = algo(coll);
    for (int p = 1; p <= 64; ++p)
      for (int kind = 0; kind < 4; ++kind)
        for (double d : {0.0, 0.003, 0.03, 1.0}) {
          const int root = coll == Collective::reduce ? static_cast<int>(rng() % p) : -1;
          GeneratorInput in = gige_input(a, p, delay_mode_pattern(rng, p, kind, d), root);
          in.bytes = 256 << 10;  // fewer blocks: a quicker verifier
          in.blocks = default_block_count(a, in);
          if (rng() % 3 == 0) in.blocks = 1 + static_cast<int>(rng() % (3 * p));
          const Schedule s = generate_schedule(a, in);
          const VerifyResult v = verify_schedule(s);
          ASSERT_TRUE(v.ok) << collective_name(coll) << " p=" << p << " kind=" << kind << " d=" << d
                            << " blocks=" << in.blocks << ": " << v.error;
          const VerifyResult ports = verify_single_port(s);
          ASSERT_TRUE(ports.ok) << collective_name(coll) << " p=" << p << " kind=" << kind
                                << " d=" << d << ": " << ports.error;
        }
  }
}

// P: the mean over ranks of the finish minus the last arrival.
double post_arrival(const AlgorithmInfo& a, const GeneratorInput& in) {
  const CostResult r =
      evaluate_cost(generate_schedule(a, in), in.arrivals, in.cost, static_cast<int64_t>(in.bytes));
  const double last = *std::max_element(in.arrivals.begin(), in.arrivals.end());
  double sum = 0;
  for (const RankCost& rc : r.ranks) sum += rc.finish - last;
  return sum / in.p;
}

TEST(LateFold, AboutOneMessageAfterTheLastArrivalOnGigE48) {
  // 48 ranks, 4 MiB, the platform's parameters: delta = alpha + 4 MiB beta = 33.6 ms.
  const AlgorithmInfo& lf = algo(Collective::allreduce);
  const AlgorithmInfo& prr = *find_algorithm(Collective::allreduce, "prr");
  const double delta = 22e-6 + 8e-9 * 4.0 * (1 << 20);
  for (double d : {0.05, 0.1, 0.5, 1.0}) {
    std::vector<double> a(48, 0.0);
    a[1] = d;
    GeneratorInput in = gige_input(lf, 48, a);
    const double p_lf = post_arrival(lf, in);
    GeneratorInput pin = gige_input(prr, 48, a);
    const double p_prr = post_arrival(prr, pin);
    std::cout << "[ info ] one late by " << d << " s: P/delta late-fold " << p_lf / delta
              << ", prr " << p_prr / delta << "\n";
    EXPECT_LT(p_lf, 1.3 * delta);
    EXPECT_LT(p_lf, p_prr);
  }
  for (int k : {2, 4}) {
    std::vector<double> a(48, 0.0);
    for (int i = 0; i < k; ++i) a[5 * i + 3] = 0.1;
    const GeneratorInput in = gige_input(lf, 48, a);
    const double p_lf = post_arrival(lf, in);
    std::cout << "[ info ] " << k << " late by 0.1 s: P/delta late-fold " << p_lf / delta << "\n";
    EXPECT_LT(p_lf, 1.5 * delta);
  }
}

// No message goes to a late rank before its own first step (its predicted arrival): what pacing
// needs of a schedule (docs/algorithms.md, "Paced sends").
void expect_nothing_sent_before_arrival(const Schedule& s, const std::vector<int>& late_ranks) {
  for (int late_rank : late_ranks) {
    const int64_t first = s.ranks[late_rank].steps.front().round;
    for (const RankSchedule& rs : s.ranks)
      for (const Step& st : rs.steps)
        for (const Op& op : rs.ops_of(st))
          if (op.kind == OpKind::send && op.peer == late_rank) {
            EXPECT_GE(st.round, first) << "rank " << rs.rank << " to late rank " << late_rank;
          }
  }
}

// The executor paces the sends the generator marks (Op::paced; docs/algorithms.md, "Paced sends"),
// which holds a rank's large sends until its earlier ones have been taken: so no paced message
// may go to a rank before that rank's predicted arrival. The all-reduce paces its first phase,
// the early ranks' reduce, which the late rank is not part of; the reduce paces the early
// ranks' reduce too, and where it folds the late rank in by Clairvoyant's schedule (no chain),
// the late rank's transfers begin at its arrival (its first step sends). The all-reduce paces
// nothing when the ranks arrive together, and no other generator (Clairvoyant's reduce
// included) paces anything.
TEST(LateFold, PacesOnlyWhereEveryReceiverIsPredictedPresent) {
  for (const AlgorithmInfo* pa : {&algo(Collective::allreduce), &algo(Collective::reduce)}) {
    const AlgorithmInfo& a = *pa;
    const Collective coll = a.collective;
    for (int late_rank : {1, 30}) {
      std::vector<double> arr(48, 0.0);
      arr[late_rank] = 0.05;
      const GeneratorInput in = gige_input(a, 48, arr, coll == Collective::reduce ? 0 : -1);
      const Schedule s = generate_schedule(a, in);
      const int64_t paced = paced_until(s);
      EXPECT_GT(paced, 10) << collective_name(coll);
      EXPECT_EQ(s.ranks[0].paced_bytes, paced_send_bytes(in.cost));
      const RankSchedule& late = s.ranks[late_rank];
      const int64_t late_first = late.steps.empty() ? INT64_MAX : late.steps.front().round;
      if (coll == Collective::allreduce) {
        EXPECT_GE(late_first, paced);
      }
      if (late_first < paced) {
        const Op& first = late.ops_of(late.steps.front()).front();
        EXPECT_EQ(first.kind, OpKind::send) << collective_name(coll);
      }
      int paced_ops = 0;
      for (const RankSchedule& rs : s.ranks) {
        for (const Step& st : rs.steps) {
          if (st.round >= paced) continue;
          for (const Op& op : rs.ops_of(st)) {
            ++paced_ops;
            if (op.kind == OpKind::send && op.peer == late_rank) {
              EXPECT_GE(st.round, late_first) << collective_name(coll) << " rank " << rs.rank;
            }
          }
        }
      }
      EXPECT_GT(paced_ops, 47 * 10) << collective_name(coll);
    }
    const GeneratorInput together =
        gige_input(a, 48, std::vector<double>(48, 0.0), coll == Collective::reduce ? 0 : -1);
    for (const AlgorithmInfo* other : algorithms_for(coll)) {
      if (other->collective != coll || other == &algo(coll)) continue;
      GeneratorInput in = together;
      in.blocks = std::max(1, default_block_count(*other, in));
      if (!other->uses_arrivals) in.arrivals.clear();
      for (const RankSchedule& rs : generate_schedule(*other, in).ranks)
        EXPECT_TRUE(none_paced(rs)) << other->name;
    }
    if (coll == Collective::allreduce) {
      GeneratorInput in = together;
      in.blocks = std::max(1, default_block_count(a, in));
      for (const RankSchedule& rs : generate_schedule(a, in).ranks) EXPECT_TRUE(none_paced(rs));
      // Several late ranks (a chain): every round is paced, and still no message goes to a late
      // rank before its own first step (its predicted arrival).
      std::vector<double> arr(48, 0.0);
      const std::vector<int> late_ranks = {3, 17, 30, 41};
      for (int r : late_ranks) arr[r] = 0.1;
      const Schedule s = generate_schedule(a, gige_input(a, 48, arr, -1));
      for (const RankSchedule& rs : s.ranks) EXPECT_TRUE(every_send_paced(rs)) << rs.rank;
      expect_nothing_sent_before_arrival(s, late_ranks);
    }
  }
}

TEST(LateFold, BalancedIsPrrThatIsTheRing) {
  // All arrive together: PRR's schedule (PRR's own test: the ring's transfers), and with 2p blocks
  // PRR's chunks as pairs of blocks, which the cost model times like the ring of p chunks.
  const AlgorithmInfo& lf = algo(Collective::allreduce);
  const AlgorithmInfo& prr = *find_algorithm(Collective::allreduce, "prr");
  const AlgorithmInfo& ring = *find_algorithm(Collective::allreduce, "ring");
  for (int p = 2; p <= 33; ++p) {
    GeneratorInput in = gige_input(lf, p, std::vector<double>(static_cast<size_t>(p), 0.0));
    in.blocks = p;
    ASSERT_TRUE(generate_schedule(lf, in).ranks == generate_schedule(prr, in).ranks) << "p=" << p;
    GeneratorInput twice = in;
    twice.blocks = 2 * p;
    const auto bytes = static_cast<int64_t>(in.bytes);
    const double t_ring =
        evaluate_cost(generate_schedule(ring, in), {}, in.cost, bytes).mean_elapsed;
    EXPECT_NEAR(evaluate_cost(generate_schedule(lf, twice), {}, in.cost, bytes).mean_elapsed,
                t_ring, 1e-5 * t_ring)  // the split of the bytes rounds differently
        << "p=" << p;
  }
}

// auto (select/selection.cpp) costs late-fold like every arrival-aware row: it runs where the cost
// model says it pays, and never when the ranks arrive together.
void prepare_call(const AlgorithmInfo& a, GeneratorInput* g) {
  g->blocks = std::max(1, default_block_count(a, *g));
  if (!a.uses_arrivals) g->arrivals.clear();
}

TEST(LateFold, AutoRunsItWhereTheCostModelSaysItPays) {
  const AlgorithmInfo& lf = algo(Collective::allreduce);
  const int64_t count = 1 << 20;
  for (double d : {0.05, 0.1, 1.0}) {
    std::vector<double> a(48, 0.0);
    a[1] = d;
    const GeneratorInput in = gige_input(lf, 48, a);
    const AutoVerdict v =
        choose_for_arrivals(Collective::allreduce, in, prepare_call, kAutoMinGainAllreduce);
    ASSERT_NE(v.algo, nullptr) << d;
    // late-fold, or relay-fold with the same shape and estimate and no simulation to charge.
    EXPECT_TRUE(std::string(v.algo->name) == "late-fold" ||
                std::string(v.algo->name) == "relay-fold")
        << d << ": " << v.algo->name;
    EXPECT_EQ(choose_allreduce(count, true, in, prepare_call), v.algo);
  }
  for (int k : {2, 4}) {  // k-late at 100 ms
    std::vector<double> a(48, 0.0);
    for (int i = 0; i < k; ++i) a[7 * i + 2] = 0.1;
    const AlgorithmInfo* chosen =
        choose_allreduce(count, true, gige_input(lf, 48, a), prepare_call);
    ASSERT_NE(chosen, nullptr) << k;
    EXPECT_TRUE(std::string(chosen->name) == "late-fold" ||
                std::string(chosen->name) == "relay-fold")
        << k << ": " << chosen->name;
  }
  // Together, or within one message of each other: the MPI library's collective.
  for (double d : {0.0, 0.01}) {
    std::vector<double> a(48, 0.0);
    a[1] = d;
    EXPECT_EQ(choose_allreduce(count, true, gige_input(lf, 48, a), prepare_call), nullptr) << d;
  }
  // Reduce: the same rule, with reduce's margin over the MPI library's best case (only the root
  // waits); without the margin, whichever arrival-aware row the model prefers.
  for (double d : {0.0, 0.1}) {
    std::vector<double> a(48, 0.0);
    a[5] = d;
    const GeneratorInput in = gige_input(algo(Collective::reduce), 48, a, 5);
    const AutoVerdict v =
        choose_for_arrivals(Collective::reduce, in, prepare_call, kAutoMinGainReduce);
    if (d == 0.0) {
      EXPECT_EQ(v.algo, nullptr);
    }
    ASSERT_TRUE(v.algo == nullptr ||
                v.native_elapsed - v.aware_elapsed >= kAutoMinGainReduce * v.balanced_time);
  }
}

// The worked example of docs/algorithms.md ("late-fold: a worked example"): p = 8, a message
// costs its bytes only (alpha = 0), the whole buffer 8 tau, rank 0 late by 16 tau.
TEST(LateFold, WorkedExample) {
  const AlgorithmInfo& lf = algo(Collective::allreduce);
  const AlgorithmInfo& prr = *find_algorithm(Collective::allreduce, "prr");
  const AlgorithmInfo& ring = *find_algorithm(Collective::allreduce, "ring");
  GeneratorInput in;
  in.p = 8;
  in.bytes = 8000;
  in.cost.alpha = 0;
  in.cost.beta = 1e-3;  // tau = 1000 bytes, an eighth of the buffer
  in.cost.gamma = 0;
  in.arrivals = {16, 0, 0, 0, 0, 0, 0, 0};
  auto finish = [&](const AlgorithmInfo& a, int blocks) {
    GeneratorInput g = in;
    g.blocks = blocks;
    std::vector<double> f;
    for (const RankCost& rc :
         evaluate_cost(generate_schedule(a, g), g.arrivals, g.cost, 8000).ranks)
      f.push_back(rc.finish);
    return f;
  };
  EXPECT_EQ(finish(ring, 8), (std::vector<double>{30, 30, 30, 30, 30, 30, 30, 30}));
  EXPECT_EQ(finish(prr, 8), (std::vector<double>{25, 26, 27, 28, 29, 30, 30, 30}));
  EXPECT_EQ(finish(lf, 16), (std::vector<double>{25.5, 24.5, 26, 26, 26, 26, 26, 26}));
  // Rank 0 hands block b to the relay, rank 1 (the earliest early rank), in round R2 + b - 1 and
  // gets the result back from the ranks whose broadcast send would go to the relay: positions
  // 7 - skip = 6, 5, 3 of the 7-position circulant (skips 1, 2, 4), ranks 7, 6 and 4 in turn.
  GeneratorInput g = in;
  g.blocks = 16;
  const Schedule s = generate_schedule(lf, g);
  int sends = 0, recvs = 0;
  for (const Step& st : s.ranks[0].steps)
    for (const Op& op : s.ranks[0].ops_of(st)) {
      if (op.kind == OpKind::send) {
        EXPECT_EQ(op.peer, 1);
        EXPECT_EQ(op.blocks.front(), sends++);
      } else {
        EXPECT_EQ(op.peer, (std::vector<int>{7, 6, 4})[recvs % 3]);
        EXPECT_EQ(op.blocks.front(), recvs++);
        EXPECT_EQ(op.combine, Combine::copy);
      }
    }
  EXPECT_EQ(sends, 16);
  EXPECT_EQ(recvs, 16);
}

TEST(RelayFold, PacesEveryRoundAndAutoLeavesLateFoldToSmallerCommunicators) {
  // relay-fold's chain and broadcast run paced (docs/algorithms.md, "Paced sends"): every round of
  // every rank, one late rank or four, and the paced schedule still verifies.
  const AlgorithmInfo* rf = find_algorithm(Collective::allreduce, "relay-fold");
  ASSERT_NE(rf, nullptr);
  for (int k : {1, 2, 4}) {
    std::vector<double> a(130, 0.0);
    for (int i = 0; i < k; ++i) a[36 + 16 * i] = 0.1;
    const GeneratorInput in = gige_input(*rf, 130, a);
    const Schedule s = generate_schedule(*rf, in);
    for (const RankSchedule& rs : s.ranks)
      EXPECT_TRUE(every_send_paced(rs)) << k << " rank " << rs.rank;
    const VerifyResult v = verify_schedule(s);
    EXPECT_TRUE(v.ok) << k << ": " << v.error;
  }
  // Its reduce likewise, wherever the root is, and no paced message goes to a late rank before
  // its own first step (its predicted arrival).
  const AlgorithmInfo* rfr = find_algorithm(Collective::reduce, "relay-fold");
  ASSERT_NE(rfr, nullptr);
  for (int k : {1, 4})
    for (int root : {0, 36}) {
      std::vector<double> a(130, 0.0);
      std::vector<int> late;
      for (int i = 0; i < k; ++i) late.push_back(36 + 16 * i), a[late.back()] = 0.1;
      const Schedule s = generate_schedule(*rfr, gige_input(*rfr, 130, a, root));
      for (const RankSchedule& rs : s.ranks)
        EXPECT_TRUE(every_send_paced(rs)) << k << " root " << root << " rank " << rs.rank;
      expect_nothing_sent_before_arrival(s, late);
      const VerifyResult v = verify_schedule(s);
      EXPECT_TRUE(v.ok) << k << " root " << root << ": " << v.error;
    }
  // From 128 ranks on auto weighs relay-fold and not late-fold: late-fold's estimate of a new
  // pattern is a Clairvoyant simulation (finish_rounds) that every rank runs on the call's path,
  // and in SMPI at gige-128 with random lateness that alone made auto (which then ran PRR) 1.16x
  // slower than PRR. No simulation runs there now; below 128 ranks late-fold stays a candidate.
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> delay(0.0, 0.1);
  for (const int p : {128, 256}) {
    std::vector<double> random(static_cast<size_t>(p));
    for (double& t : random) t = delay(rng);
    const clairvoyant::FinishRoundsStats before = clairvoyant::finish_rounds_stats();
    const AutoVerdict v = choose_for_arrivals(Collective::allreduce, gige_input(*rf, p, random),
                                              prepare_call, kAutoMinGainAllreduce);
    EXPECT_EQ(clairvoyant::finish_rounds_stats().runs, before.runs) << p;
    if (v.best_aware != nullptr) {
      EXPECT_STRNE(v.best_aware->name, "late-fold") << p;
    }
  }
  std::vector<double> one_late(48, 0.0);
  one_late[1] = 0.05;
  const AutoVerdict small =
      choose_for_arrivals(Collective::allreduce,
                          gige_input(algo(Collective::allreduce), 48, one_late), prepare_call,
                          kAutoMinGainAllreduce);
  ASSERT_NE(small.best_aware, nullptr);
  EXPECT_STREQ(small.best_aware->name, "late-fold");
}

}  // namespace
}  // namespace papcoll
