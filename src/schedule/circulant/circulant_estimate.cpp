#include "schedule/circulant/circulant_estimate.hpp"

#include <algorithm>
#include <array>
#include <memory>

#include "schedule/circulant/circulant_recv.hpp"
#include "schedule/circulant/circulant_send.hpp"
#include "schedule/circulant/circulant_tables.hpp"

namespace papcoll::circulant {
namespace {

// Every virtual rank's receive and send schedule for one group size.
struct Tables {
  Skips sk;
  std::vector<int> recv, send;  // [v * q + k]
};

// The tables of the last few group sizes (a communicator's size, an arrival-aware early group),
// per thread: they are a pure function of g, so caching changes nothing but time.
const Tables& tables_for(int g) {
  constexpr size_t kKept = 4;
  thread_local std::array<std::shared_ptr<const Tables>, kKept> kept;
  thread_local size_t next = 0;
  for (const auto& t : kept)
    if (t != nullptr && t->sk.p == g) return *t;
  auto t = std::make_shared<Tables>();
  t->sk = make_skips(g);
  const int q = t->sk.q;
  t->recv.resize(static_cast<size_t>(g) * q);
  t->send.resize(static_cast<size_t>(g) * q);
  for (int v = 0; v < g; ++v) {
    recv_schedule(t->sk, v, &t->recv[static_cast<size_t>(v) * q]);
    send_schedule(t->sk, v, &t->send[static_cast<size_t>(v) * q]);
  }
  kept[next] = std::move(t);
  const Tables& out = *kept[next];
  next = (next + 1) % kKept;
  return out;
}

}  // namespace

namespace {

std::vector<double> evaluate(int g, int n, std::span<const double> a, double message);

}  // namespace

std::vector<double> bcast_finish_times(int g, int n, std::span<const double> a, double message) {
  if (g < 2) return std::vector<double>(a.begin(), a.end());
  n = std::max(1, n);
  // Equal arrivals (the early group of one or a few late ranks): the balanced finish times
  // shifted, kept for the last (g, n, message) of this thread, as `auto` asks at every call.
  if (std::all_of(a.begin(), a.end(), [&](double x) { return x == a[0]; })) {
    struct Balanced {
      int g = 0, n = 0;
      double message = 0;
      std::vector<double> finish;
    };
    thread_local Balanced last;
    if (last.g != g || last.n != n || last.message != message) {
      const std::vector<double> zeros(static_cast<size_t>(g), 0.0);
      last = {g, n, message, evaluate(g, n, zeros, message)};
    }
    std::vector<double> finish(last.finish);
    for (double& f : finish) f += a[0];
    return finish;
  }
  // Otherwise the last result of this thread (auto asks at every call, a pattern often repeats).
  struct Last {
    int g = 0, n = 0;
    double message = 0;
    std::vector<double> a, finish;
  };
  thread_local Last last;
  if (last.g != g || last.n != n || last.message != message ||
      !std::equal(a.begin(), a.end(), last.a.begin(), last.a.end()))
    last = {g, n, message, std::vector<double>(a.begin(), a.end()), evaluate(g, n, a, message)};
  return last.finish;
}

namespace {

std::vector<double> evaluate(int g, int n, std::span<const double> a, double message) {
  std::vector<double> finish(a.begin(), a.end());
  const Tables& t = tables_for(g);
  const int q = t.sk.q;
  // Per rank: end of its last step (finish), when its send and receive ports are free, the end of
  // its last send.
  std::vector<double> send_free(finish), recv_free(finish), last_send(finish);
  std::vector<double> arrived(static_cast<size_t>(g));
  std::vector<char> receives(static_cast<size_t>(g));
  for (int round = 0; round < real_rounds(q, n); ++round) {
    const Round rd = round_of(q, n, round);
    const int skip = t.sk.skip[rd.k];
    // Receives first: a receiver's start is the end of its previous step, read before this
    // round changes it.
    for (int v = 0; v < g; ++v) {
      receives[v] = v != 0 && t.recv[static_cast<size_t>(v) * q + rd.k] + rd.offset >= 0;
    }
    for (int v = 0; v < g; ++v) {
      const int to = v + skip < g ? v + skip : v + skip - g;
      if (to == 0 || t.send[static_cast<size_t>(v) * q + rd.k] + rd.offset < 0) continue;
      const double start = std::max({finish[v], send_free[v], finish[to], recv_free[to]});
      const double end = start + message;
      send_free[v] = recv_free[to] = last_send[v] = end;
      arrived[to] = end;
    }
    for (int v = 0; v < g; ++v)
      if (receives[v]) finish[v] = std::max(finish[v], arrived[v]);
  }
  for (int v = 0; v < g; ++v) finish[v] = std::max(finish[v], last_send[v]);
  return finish;
}

}  // namespace

}  // namespace papcoll::circulant
