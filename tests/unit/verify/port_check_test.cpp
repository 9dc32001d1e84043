// verify_single_port: at most one send and one receive per rank and round, and no block received
// and sent in the same round (Sect. 4.2's P').
#include <gtest/gtest.h>

#include "test_schedules.hpp"
#include "verify/port_check.hpp"

namespace papcoll {
namespace {

TEST(SinglePort, AcceptsOneSendOneReceive) {
  ScheduleBuilder b(Collective::reduce, "t", 3, 2, 0);
  b.transfer(0, 1, 0, {0}, Combine::reduce);
  b.transfer(0, 0, 1, {1}, Combine::reduce);
  EXPECT_TRUE(verify_single_port(std::move(b).build()).ok);
}

TEST(SinglePort, RejectsTwoSends) {
  ScheduleBuilder b(Collective::reduce, "t", 3, 2, 0);
  b.transfer(0, 1, 0, {0}, Combine::reduce);
  b.transfer(0, 1, 2, {1}, Combine::reduce);
  const VerifyResult v = verify_single_port(std::move(b).build());
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.error.find("more than one send"), std::string::npos) << v.error;
}

TEST(SinglePort, RejectsTwoReceives) {
  ScheduleBuilder b(Collective::reduce, "t", 3, 2, 0);
  b.transfer(0, 1, 0, {0}, Combine::reduce);
  b.transfer(0, 2, 0, {1}, Combine::reduce);
  EXPECT_FALSE(verify_single_port(std::move(b).build()).ok);
}

TEST(SinglePort, RejectsForwardingWhatArrivesInTheSameRound) {
  ScheduleBuilder b(Collective::reduce, "t", 3, 1, 0);
  b.transfer(0, 2, 1, {0}, Combine::reduce);
  b.transfer(0, 1, 0, {0}, Combine::reduce);
  const VerifyResult v = verify_single_port(std::move(b).build());
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.error.find("same round"), std::string::npos) << v.error;
}

}  // namespace
}  // namespace papcoll
