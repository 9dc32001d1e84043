// The verifier must catch broken schedules, not only accept good ones.
#include <gtest/gtest.h>

#include "schedule/registry.hpp"
#include "test_schedules.hpp"
#include "verify/verifier.hpp"

namespace papcoll {
namespace {

Schedule ring4() {
  GeneratorInput in;
  in.p = 4;
  in.blocks = 4;
  return generate_schedule(*find_algorithm(Collective::allreduce, "ring"), in);
}

TEST(Verifier, AcceptsRing) { EXPECT_TRUE(verify_schedule(ring4()).ok); }

TEST(Verifier, RejectsDoubleCounting) {
  // 0 sends to 1, 1 reduces; then 1 sends the sum back and 0 *reduces* it: 0 counted twice.
  ScheduleBuilder b(Collective::allreduce, "bad", 2, 1);
  b.transfer(0, 0, 1, {0}, Combine::reduce);
  b.transfer(1, 1, 0, {0}, Combine::reduce);
  const VerifyResult v = verify_schedule(std::move(b).build());
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.error.find("twice"), std::string::npos) << v.error;
}

TEST(Verifier, RejectsMissingContribution) {
  ScheduleBuilder b(Collective::allreduce, "bad", 3, 1);
  b.transfer(0, 0, 1, {0}, Combine::reduce);
  b.transfer(1, 1, 0, {0}, Combine::copy);
  b.transfer(1, 1, 2, {0}, Combine::copy);  // 2's own contribution is lost
  const VerifyResult v = verify_schedule(std::move(b).build());
  EXPECT_FALSE(v.ok);
}

TEST(Verifier, RejectsUnmatchedSend) {
  Schedule s = ring4();
  s.ranks[2] = without_ops(s.ranks[2], [](const Step& st, const Op& op) {  // drop a receive
    return st.round == 0 && op.kind == OpKind::recv;
  });
  EXPECT_FALSE(verify_schedule(s).ok);
}

TEST(Verifier, RejectsReceiveWithoutSend) {
  Schedule s = ring4();
  s.ranks[2] = without_ops(s.ranks[2], [](const Step& st, const Op& op) {  // drop a send
    return st.round == 0 && op.kind == OpKind::send;
  });
  const VerifyResult v = verify_schedule(s);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.error.find("has no send"), std::string::npos) << v.error;
}

TEST(Verifier, PairsMessagesBetweenTwoRanksInOpOrder) {
  // MPI matches messages of one (source, tag) in posting order: two in one round carry blocks 0
  // and 1, and receives posted in the other order get each other's blocks.
  ScheduleBuilder b(Collective::bcast, "two", 2, 2, 0);
  b.transfer(0, 0, 1, {0}, Combine::copy);
  b.transfer(0, 0, 1, {1}, Combine::copy);
  Schedule s = std::move(b).build();
  ASSERT_TRUE(verify_schedule(s).ok) << verify_schedule(s).error;
  ASSERT_EQ(s.ranks[1].ops.size(), 2u);
  std::swap(s.ranks[1].ops[0], s.ranks[1].ops[1]);
  const VerifyResult v = verify_schedule(s);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.error.find("different blocks"), std::string::npos) << v.error;
}

TEST(Verifier, RejectsBlockMismatch) {
  Schedule s = ring4();
  for (Op& op : s.ranks[1].ops)
    if (op.kind == OpKind::recv && op.blocks.front() != 3) op.blocks = {3};
  EXPECT_FALSE(verify_schedule(s).ok);
}

TEST(Verifier, RejectsSendBeforeHeld) {
  // In a broadcast only the root holds data; rank 1 forwarding first is an error.
  ScheduleBuilder b(Collective::bcast, "bad", 3, 1, 0);
  b.transfer(0, 1, 2, {0}, Combine::copy);
  b.transfer(1, 0, 1, {0}, Combine::copy);
  const VerifyResult v = verify_schedule(std::move(b).build());
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.error.find("before it holds"), std::string::npos) << v.error;
}

TEST(Verifier, RejectsNonIncreasingRounds) {
  Schedule s = ring4();
  s.ranks[0].steps[1].round = s.ranks[0].steps[0].round;
  EXPECT_FALSE(verify_schedule(s).ok);
}

TEST(Verifier, SendsReadStateBeforeTheStepsReceives) {
  // Two ranks swap and reduce in one round: each must send its own value, not the sum.
  ScheduleBuilder b(Collective::allreduce, "swap", 2, 1);
  b.transfer(0, 0, 1, {0}, Combine::reduce);
  b.transfer(0, 1, 0, {0}, Combine::reduce);
  EXPECT_TRUE(verify_schedule(std::move(b).build()).ok);
}

TEST(Verifier, SeveralReducesOfABlockInOneStepButNoCopyBeside) {
  // 1 and 2 hand block 0 to 0 in one step, which reduces both (the executor takes each into its
  // own scratch); 0 then sends the sum back. A copy beside another receive of the block is
  // refused: which value would stay is the order the messages land in.
  auto build = [](Combine second) {
    ScheduleBuilder b(Collective::allreduce, "fan-in", 3, 1);
    b.transfer(0, 1, 0, {0}, Combine::reduce);
    b.transfer(0, 2, 0, {0}, second);
    b.transfer(1, 0, 1, {0}, Combine::copy);
    b.transfer(1, 0, 2, {0}, Combine::copy);
    return std::move(b).build();
  };
  EXPECT_TRUE(verify_schedule(build(Combine::reduce)).ok)
      << verify_schedule(build(Combine::reduce)).error;
  const VerifyResult v = verify_schedule(build(Combine::copy));
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.error.find("received twice in one step"), std::string::npos) << v.error;
}

}  // namespace
}  // namespace papcoll
