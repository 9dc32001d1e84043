// The four correctness conditions (arXiv 2312.11236, Sec. 2.1) for every processor: all p up to
// 2048 here, a sample of larger p (powers of two and their neighbours, primes) up to 2^20. The
// whole range 1..2^17 is checked with `papcoll-sched verify-circulant` (docs/circulant.md).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "schedule/circulant/circulant_check.hpp"
#include "schedule/circulant/circulant_recv.hpp"
#include "schedule/circulant/circulant_send.hpp"
#include "schedule/circulant/circulant_skips.hpp"

namespace papcoll::circulant {
namespace {

TEST(CirculantCheck, AllPUpTo2048) {
  const CheckResult r = check_circulant_range(1, 2048);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.stats.p_checked, 2048);
  EXPECT_EQ(r.stats.processors, 2048LL * 2049 / 2);
  EXPECT_LE(r.stats.max_violations, 4);  // Proposition 3
}

TEST(CirculantCheck, LargerSample) {
  // 2^k - 1, 2^k, 2^k + 1 for k = 11..18, 2^19 and 2^20, and primes (65537 = 2^16 + 1,
  // 131071 = 2^17 - 1 and 524287 = 2^19 - 1 among them).
  std::vector<int> ps = {1 << 19, 1 << 20};
  for (int k = 11; k <= 18; ++k)
    for (int d : {-1, 0, 1}) ps.push_back((1 << k) + d);
  for (int prime : {3001, 10007, 65521, 65537, 131071, 262139, 524287, 1048573})
    ps.push_back(prime);
  for (int p : ps) {
    const CheckResult r = check_circulant(p);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_LE(r.stats.max_violations, 4) << "p=" << p;
    // Proposition 1: O(q) recursive calls; in practice below q + 2.
    EXPECT_LE(r.stats.max_calls, 2 * 21 + 2) << "p=" << p;
  }
}

// Tables of p processors from the schedule functions, for corrupting.
void tables(int p, std::vector<int8_t>& recv, std::vector<int8_t>& send) {
  const Skips s = make_skips(p);
  recv.assign(static_cast<size_t>(p) * s.q, 0);
  send.assign(recv.size(), 0);
  int buf[kMaxQ + 1];
  for (int r = 0; r < p; ++r) {
    recv_schedule(s, r, buf);
    for (int k = 0; k < s.q; ++k) recv[static_cast<size_t>(r) * s.q + k] = int8_t(buf[k]);
    send_schedule(s, r, buf);
    for (int k = 0; k < s.q; ++k) send[static_cast<size_t>(r) * s.q + k] = int8_t(buf[k]);
  }
}

TEST(CirculantCheck, CatchesBrokenSchedules) {
  const int p = 17, q = 5;
  std::vector<int8_t> recv, send;
  tables(p, recv, send);
  ASSERT_TRUE(check_tables(p, recv, send).ok);
  auto expect_fail = [&](const std::vector<int8_t>& rv, const std::vector<int8_t>& sv,
                         const char* what) {
    const CheckResult r = check_tables(p, rv, sv);
    EXPECT_FALSE(r.ok) << what;
    EXPECT_NE(r.error.find(what), std::string::npos) << r.error;
  };
  {  // r = 3 sends -5 in round 2 instead of -4: not what 3 + skip[2] = 6 receives.
    std::vector<int8_t> s2 = send;
    s2[3 * q + 2] = -5;
    expect_fail(recv, s2, "condition 1");
  }
  {  // Swap two of r = 9's receive rounds: the sends no longer match.
    std::vector<int8_t> r2 = recv;
    std::swap(r2[9 * q + 0], r2[9 * q + 1]);
    expect_fail(r2, send, "condition 1");
  }
  {  // r = 5 receives block -3 twice (rounds 0 and 1).
    std::vector<int8_t> r2 = recv;
    r2[5 * q + 0] = r2[5 * q + 1];
    expect_fail(r2, send, "condition 3");
  }
  {  // r = 1 sends its baseblock (0) in round 0, before receiving it in round 0.
    std::vector<int8_t> s2 = send;
    s2[1 * q + 0] = 0;
    expect_fail(recv, s2, "condition 4");
  }
  EXPECT_FALSE(check_circulant(0).ok);
  const CheckResult empty = check_circulant_range(5, 3);  // nothing to check
  EXPECT_TRUE(empty.ok);
  EXPECT_EQ(empty.stats.p_checked, 0);
}

}  // namespace
}  // namespace papcoll::circulant
