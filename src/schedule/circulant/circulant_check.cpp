#include "schedule/circulant/circulant_check.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "schedule/circulant/circulant_recv.hpp"
#include "schedule/circulant/circulant_send.hpp"
#include "schedule/circulant/circulant_skips.hpp"

namespace papcoll::circulant {
namespace {

template <typename... T>
CheckResult failure(const T&... parts) {
  std::ostringstream o;
  (o << ... << parts);
  CheckResult res;
  res.ok = false;
  res.error = o.str();
  return res;
}

}  // namespace

CheckResult check_tables(int p, std::span<const int8_t> recv, std::span<const int8_t> send) {
  if (p < 1 || p > kMaxP) return failure("p=", p, " out of range");
  const Skips sk = make_skips(p);
  const int q = sk.q;
  const size_t cells = static_cast<size_t>(p) * q;
  if (recv.size() != cells || send.size() != cells)
    return failure("p=", p, ": tables of wrong size");
  auto at = [&](std::span<const int8_t> table, int v, int k) {
    return int{table[static_cast<size_t>(v) * q + k]};
  };
  for (int r = 0; r < p; ++r) {
    const int b = baseblock(sk, r);
    if ((r == 0) != (b == q) || b < 0 || b > q)
      return failure("p=", p, " r=", r, ": baseblock ", b, " out of range");
    // (3) b and the q-1 values of {-q..-1} other than b - q, each once (the root: all q).
    uint64_t seen = 0;
    for (int k = 0; k < q; ++k) {
      const int v = at(recv, r, k);
      const bool allowed = v == b ? r != 0 : (v >= -q && v < 0 && v != b - q);
      if (!allowed || (seen >> (v + q) & 1))
        return failure("p=", p, " r=", r, " round ", k, ": condition 3 fails (recvblock ", v,
                       ", baseblock ", b, ")");
      seen |= uint64_t{1} << (v + q);
    }
    // (4) only what r holds: the root everything (it sends block k in round k), any other
    // processor its baseblock of the last phase or a block received earlier in this one.
    for (int k = 0; k < q; ++k) {
      const int x = at(send, r, k);
      bool holds = r == 0 ? x == k : x == b - q;
      for (int j = 0; j < k && !holds; ++j) holds = at(recv, r, j) == x;
      if (!holds)
        return failure("p=", p, " r=", r, " round ", k, ": condition 4 fails (sendblock ", x,
                       " not held)");
    }
  }
  // (1) and (2) state the same equalities from the two ends of each edge; checking (1) for all
  // processors first makes a wrong entry show up as (1), from its receiver.
  for (int r = 0; r < p; ++r)
    for (int k = 0; k < q; ++k) {
      int f = r - sk.skip[k];
      if (f < 0) f += p;
      if (at(recv, r, k) != at(send, f, k))
        return failure("p=", p, " r=", r, " round ", k, ": condition 1 fails (receives ",
                       at(recv, r, k), ", from-processor ", f, " sends ", at(send, f, k), ")");
    }
  for (int r = 0; r < p; ++r)
    for (int k = 0; k < q; ++k) {
      int t = r + sk.skip[k];
      if (t >= p) t -= p;
      if (at(send, r, k) != at(recv, t, k))
        return failure("p=", p, " r=", r, " round ", k, ": condition 2 fails (sends ",
                       at(send, r, k), ", to-processor ", t, " receives ", at(recv, t, k), ")");
    }
  return {};
}

CheckResult check_circulant(int p) {
  if (p < 1 || p > kMaxP) return failure("p=", p, " out of range");
  const Skips sk = make_skips(p);
  const int q = sk.q;
  CheckStats stats;
  stats.p_checked = 1;
  stats.processors = p;
  // Values lie in [-q, q-1] with q <= 29: one byte each keeps p = 2^20 at 2 x 20 MiB.
  std::vector<int8_t> recv(static_cast<size_t>(p) * q), send(recv.size());
  int buf[kMaxQ + 1];
  for (int r = 0; r < p && q > 0; ++r) {
    const int calls = recv_schedule(sk, r, buf);
    if (calls > stats.max_calls) {
      stats.max_calls = calls;
      stats.worst_calls_p = p;
    }
    for (int k = 0; k < q; ++k) {
      if (buf[k] < -q || buf[k] >= q)
        return failure("p=", p, " r=", r, " round ", k, ": recvblock ", buf[k], " out of range");
      recv[static_cast<size_t>(r) * q + k] = static_cast<int8_t>(buf[k]);
    }
    const int v = send_schedule(sk, r, buf);
    stats.total_violations += v;
    if (v > stats.max_violations) {
      stats.max_violations = v;
      stats.worst_violations_p = p;
    }
    for (int k = 0; k < q; ++k) {
      if (buf[k] < -q || buf[k] >= q)
        return failure("p=", p, " r=", r, " round ", k, ": sendblock ", buf[k], " out of range");
      send[static_cast<size_t>(r) * q + k] = static_cast<int8_t>(buf[k]);
    }
  }
  CheckResult res = check_tables(p, recv, send);
  res.stats = stats;
  return res;
}

CheckResult check_circulant_range(int from, int to, int threads) {
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::atomic<int> next{from};
  std::atomic<bool> stop{false};
  std::mutex m;
  CheckResult total;
  int failed_p = 0;
  auto work = [&] {
    for (;;) {
      const int p = next.fetch_add(1);
      if (p > to || stop.load()) return;
      CheckResult one = check_circulant(p);
      std::lock_guard<std::mutex> lock(m);
      if (!one.ok) {
        if (total.ok || p < failed_p) {
          total.ok = false;
          total.error = one.error;
          failed_p = p;
        }
        stop = true;
        continue;
      }
      CheckStats& s = total.stats;
      s.p_checked += one.stats.p_checked;
      s.processors += one.stats.processors;
      s.total_violations += one.stats.total_violations;
      if (one.stats.max_calls > s.max_calls ||
          (one.stats.max_calls == s.max_calls && p < s.worst_calls_p)) {
        s.max_calls = one.stats.max_calls;
        s.worst_calls_p = p;
      }
      if (one.stats.max_violations > s.max_violations ||
          (one.stats.max_violations == s.max_violations && p < s.worst_violations_p)) {
        s.max_violations = one.stats.max_violations;
        s.worst_violations_p = p;
      }
    }
  };
  std::vector<std::thread> pool;
  for (int i = 1; i < threads; ++i) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  return total;
}

}  // namespace papcoll::circulant
