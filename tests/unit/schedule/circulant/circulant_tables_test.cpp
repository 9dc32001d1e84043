// The worked examples of arXiv 2312.11236: Table 2 (p = 17) is reproduced exactly; Table 1
// (p = 16) shows the send schedule in the paper's "baseblock" notation, mapped below.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "schedule/circulant/circulant_recv.hpp"
#include "schedule/circulant/circulant_send.hpp"
#include "schedule/circulant/circulant_skips.hpp"

namespace papcoll::circulant {
namespace {

TEST(CirculantSkips, HalvingAndBaseblocks) {
  const Skips s = make_skips(17);
  ASSERT_EQ(s.q, 5);
  EXPECT_EQ(std::vector<int>(s.skip, s.skip + 6), (std::vector<int>{1, 2, 3, 5, 9, 17}));
  const std::vector<int> bb = {5, 0, 1, 2, 0, 3, 0, 1, 2, 4, 0, 1, 2, 0, 3, 0, 1};
  for (int r = 0; r < 17; ++r) EXPECT_EQ(baseblock(s, r), bb[r]) << "r=" << r;
  EXPECT_EQ(make_skips(1).q, 0);
  EXPECT_EQ(make_skips(2).q, 1);
  EXPECT_EQ(make_skips(1 << 20).q, 20);
  EXPECT_EQ(make_skips((1 << 20) + 1).q, 21);
  EXPECT_THROW(make_skips(0), std::invalid_argument);
}

// Table 2 of the paper, rows k = 0..4, columns r = 0..16.
const std::vector<std::vector<int>> kTable2Recv = {
    {-4, 0, -5, -4, -3, -5, -2, -5, -4, -3, -1, -5, -4, -3, -5, -2, -5},
    {-5, -4, 1, -5, -4, -3, -3, -2, -5, -4, -3, -1, -5, -4, -3, -3, -2},
    {-2, -2, -2, 2, 0, -4, -4, -3, -2, -2, -4, -3, -1, -1, -4, -4, -3},
    {-1, -3, -3, -2, -2, 3, 0, 1, 2, -5, -2, -2, -2, -2, -1, -1, -1},
    {-3, -1, -1, -1, -1, -1, -1, -1, -1, 4, 0, 1, 2, 0, 3, 0, 1}};
const std::vector<std::vector<int>> kTable2Send = {
    {0, -5, -4, -3, -5, -2, -5, -4, -3, -1, -5, -4, -3, -5, -2, -5, -4},
    {1, -5, -4, -3, -3, -2, -5, -4, -3, -1, -5, -4, -3, -3, -2, -5, -4},
    {2, 0, -4, -4, -3, -2, -2, -4, -3, -1, -1, -4, -4, -3, -2, -2, -2},
    {3, 0, 1, 2, -5, -2, -2, -2, -2, -1, -1, -1, -1, -3, -3, -2, -2},
    {4, 0, 1, 2, 0, 3, 0, 1, -3, -1, -1, -1, -1, -1, -1, -1, -1}};

TEST(CirculantTables, Table2P17) {
  const Skips s = make_skips(17);
  for (int r = 0; r < 17; ++r) {
    int rb[kMaxQ + 1], sb[kMaxQ + 1], ref[kMaxQ + 1];
    recv_schedule(s, r, rb);
    send_schedule(s, r, sb);
    send_schedule_reference(s, r, ref);
    for (int k = 0; k < 5; ++k) {
      EXPECT_EQ(rb[k], kTable2Recv[k][r]) << "recvblock r=" << r << " k=" << k;
      EXPECT_EQ(sb[k], kTable2Send[k][r]) << "sendblock r=" << r << " k=" << k;
      EXPECT_EQ(ref[k], kTable2Send[k][r]) << "reference r=" << r << " k=" << k;
    }
  }
}

// Table 1 (p = 16): baseblocks, and per round the block each processor sends to r + 2^k, named
// by baseblock: a value t < 4 is the block of baseblock t received in the previous phase
// (schedule value t - q), and 4 (= q) is the processor's own baseblock of this phase (value b_r);
// the root column shows 4 throughout (it owns all blocks; its schedule sends block k in round k).
// One entry of the table, r = 14 in round 1, reads 2 where this rule and the schedule give 1; that
// message goes to the root (14 + 2 = 16 = 0 mod 16) and is never sent.
TEST(CirculantTables, Table1P16) {
  const std::vector<int> bb = {4, 0, 1, 0, 2, 0, 1, 0, 3, 0, 1, 0, 2, 0, 1, 0};
  const std::vector<std::vector<int>> sent = {{4, 0, 1, 0, 2, 0, 1, 0, 3, 0, 1, 0, 2, 0, 1, 0},
                                              {4, 4, 1, 1, 2, 2, 1, 1, 3, 3, 1, 1, 2, 2, 2, 1},
                                              {4, 4, 4, 4, 2, 2, 2, 2, 3, 3, 3, 3, 2, 2, 2, 2},
                                              {4, 4, 4, 4, 4, 4, 4, 4, 3, 3, 3, 3, 3, 3, 3, 3}};
  const Skips s = make_skips(16);
  ASSERT_EQ(s.q, 4);
  for (int k = 0; k <= 4; ++k) EXPECT_EQ(s.skip[k], 1 << k);
  for (int r = 0; r < 16; ++r) {
    EXPECT_EQ(baseblock(s, r), bb[r]);
    int sb[kMaxQ + 1];
    send_schedule(s, r, sb);
    for (int k = 0; k < 4; ++k) {
      if (r == 0) {
        EXPECT_EQ(sb[k], k);
        continue;
      }
      if (r == 14 && k == 1) continue;  // the misprint, a message to the root
      const int t = sent[k][r];
      EXPECT_EQ(sb[k], t == 4 ? bb[r] : t - 4) << "r=" << r << " k=" << k;
    }
  }
}

TEST(CirculantTables, PartialReceiveScheduleIsAPrefix) {
  for (int p : {2, 3, 7, 17, 100, 1000, 4097}) {
    const Skips s = make_skips(p);
    for (int r = 0; r < p; r += 1 + p / 50) {
      int full[kMaxQ + 1], part[kMaxQ + 1];
      recv_schedule(s, r, full);
      for (int rounds = 1; rounds <= s.q; ++rounds) {
        recv_schedule(s, r, part, rounds);
        for (int k = 0; k < rounds; ++k) ASSERT_EQ(part[k], full[k]) << p << ' ' << r;
      }
    }
  }
}

}  // namespace
}  // namespace papcoll::circulant
