// The paper's worked examples (Proficz, Figs. 6 and 8) in units of tau: alpha = 1, beta = gamma =
// 0, so every message costs one tau whatever it carries; p = 4, four blocks, rank 0 late.
#include <gtest/gtest.h>

#include "schedule/registry.hpp"
#include "test_schedules.hpp"
#include "verify/cost_model.hpp"
#include "verify/verifier.hpp"

namespace papcoll {
namespace {

CostResult cost_in_tau(const char* algo, std::vector<double> arrivals) {
  GeneratorInput in;
  in.p = static_cast<int>(arrivals.size());
  in.blocks = in.p;
  in.arrivals = arrivals;
  in.cost = CostParams{1.0, 0.0, 0.0};
  in.bytes = in.p;
  const Schedule s = generate_schedule(*find_algorithm(Collective::allreduce, algo), in);
  EXPECT_TRUE(verify_schedule(s).ok);
  return evaluate_cost(s, arrivals, in.cost, in.p);
}

TEST(CostModel, BalancedRingTakesTwoPMinusTwoRounds) {
  for (int p : {2, 3, 4, 8}) {
    const CostResult r = cost_in_tau("ring", std::vector<double>(static_cast<size_t>(p), 0.0));
    EXPECT_DOUBLE_EQ(r.max_finish, 2.0 * (p - 1)) << p;
  }
}

// Fig. 8: ring vs PRR, process 0 delayed 2 tau. The paper's 8 tau vs 7 tau is the delayed
// process's finish. The last early process finishes at 8 tau in both: that is a lower bound for
// any ring-neighbour schedule here (the late rank must send at least p = 4 one-block messages,
// starting at 2 tau, and its last one needs two more hops to reach the rank before it).
TEST(CostModel, Fig8RingVersusPrr) {
  const CostResult ring = cost_in_tau("ring", {2, 0, 0, 0});
  const CostResult prr = cost_in_tau("prr", {2, 0, 0, 0});
  EXPECT_DOUBLE_EQ(ring.ranks[0].finish, 8.0);
  EXPECT_DOUBLE_EQ(prr.ranks[0].finish, 7.0);
  EXPECT_DOUBLE_EQ(ring.max_finish, 8.0);
  EXPECT_DOUBLE_EQ(prr.max_finish, 8.0);
  EXPECT_DOUBLE_EQ(ring.mean_elapsed, 7.5);
  EXPECT_DOUBLE_EQ(prr.mean_elapsed, 7.25);
}

// Fig. 6: (unsorted) linear tree vs SLT, process 0 delayed. The figure draws the late process's
// first transfer in the fifth slot: with arrival 5 tau the model gives the paper's 14 tau vs
// 12 tau exactly; with arrival 4 tau both are one tau earlier. Either way SLT saves 2 tau.
TEST(CostModel, Fig6LinearTreeVersusSlt) {
  EXPECT_DOUBLE_EQ(cost_in_tau("linear", {5, 0, 0, 0}).max_finish, 14.0);
  EXPECT_DOUBLE_EQ(cost_in_tau("slt", {5, 0, 0, 0}).max_finish, 12.0);
  EXPECT_DOUBLE_EQ(cost_in_tau("linear", {4, 0, 0, 0}).max_finish, 13.0);
  EXPECT_DOUBLE_EQ(cost_in_tau("slt", {4, 0, 0, 0}).max_finish, 11.0);
}

TEST(CostModel, ImbalanceAwareNeverWorseOnMeanElapsedForOneLate) {
  for (int p = 3; p <= 16; ++p)
    for (double delay : {1.0, 2.0, 5.0, 20.0}) {
      std::vector<double> a(static_cast<size_t>(p), 0.0);
      a[1] = delay;
      EXPECT_LE(cost_in_tau("prr", a).mean_elapsed, cost_in_tau("ring", a).mean_elapsed + 1e-9)
          << "p=" << p << " delay=" << delay;
      EXPECT_LE(cost_in_tau("slt", a).mean_elapsed, cost_in_tau("linear", a).mean_elapsed + 1e-9)
          << "p=" << p << " delay=" << delay;
    }
}

TEST(CostModel, HockneyTermsScaleWithBytes) {
  GeneratorInput in;
  in.p = 2;
  in.blocks = 1;
  const Schedule s =
      generate_schedule(*find_algorithm(Collective::allreduce, "recursive-doubling"), in);
  // One exchange of 1000 bytes and one reduction of 1000 bytes.
  const CostResult r = evaluate_cost(s, {}, CostParams{1e-6, 1e-9, 1e-10}, 1000);
  EXPECT_NEAR(r.max_finish, 1e-6 + 1e-6 + 1e-7, 1e-15);
}

TEST(CostModel, ElapsedIsFinishMinusOwnArrival) {
  const CostResult r = cost_in_tau("ring", {0, 3, 1, 0});
  for (const RankCost& rc : r.ranks) EXPECT_DOUBLE_EQ(rc.elapsed, rc.finish - rc.arrival);
}

}  // namespace
}  // namespace papcoll

namespace papcoll {
namespace {

// A direct exchange in one step (each of p ranks sends a block to every other, rank i's t-th
// message to i + t): the ranks' k-th sends go out side by side, so the step takes p - 1 message
// times, as a round-by-round all-to-all would; rank by rank, each rank's sends queued behind the
// earlier ranks' and it took nearly twice as long.
TEST(CostModel, ADirectExchangeInOneStepTakesPMinusOneMessages) {
  for (int p : {3, 4, 8}) {
    ScheduleBuilder b(Collective::allgatherv, "direct", p, p);
    for (int t = 1; t < p; ++t)
      for (int i = 0; i < p; ++i) b.transfer(0, i, (i + t) % p, {i}, Combine::copy);
    const Schedule s = std::move(b).build();
    ASSERT_TRUE(verify_schedule(s).ok) << verify_schedule(s).error;
    EXPECT_DOUBLE_EQ(evaluate_cost(s, {}, CostParams{1.0, 0.0, 0.0}, p).max_finish, p - 1.0) << p;
  }
}

}  // namespace
}  // namespace papcoll
