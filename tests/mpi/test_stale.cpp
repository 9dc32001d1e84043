// The bounded-staleness all-reduce (include/papcoll/stale.h, docs/algorithms.md): its invariants
// under injected late ranks of random identity and under one persistently slow rank.
//
// Every contribution is a one-hot vector: rank r at call k adds 1 at position r * K + k of a
// buffer of p * K integers. A call's result therefore says exactly which contributions it
// included, and the checks are exact:
//   - every rank gets the same result and count for every call and for the flush;
//   - each contribution is in exactly one result (calls and flush), never twice, never lost;
//   - the count is the number of contributions in the result;
//   - the bound: contribution (r, k) is in call n with k <= n <= k + S (the flush counts as call
//     K + 1, after the last);
//   - staleness 0 includes every rank's contribution of the call in that call;
//   - with S >= 1 and a rank late by far more than the deadline, some call went on without it
//     (the path under test was taken).
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "mpi_check.hpp"
#include "papcoll/stale.h"
#include "stale/stale_engine.hpp"

using namespace papcoll_test;

namespace {

enum class Late { none, random_rank, persistent, random_subset };

struct RunSpec {
  int staleness = 1;
  double deadline = 0.001;
  int calls = 24;
  Late late = Late::random_rank;
  double delay = 0.015;  // seconds a late rank sleeps before its call
  const char* algorithm = nullptr;
  int handles = 1;  // handles used in turn, as DDP's buckets
  std::uint64_t seed = 1;
};

bool is_late(const RunSpec& s, int call, int rank, int p) {
  if (p < 2) return false;
  switch (s.late) {
    case Late::none: return false;
    case Late::random_rank: return static_cast<int>(mix(s.seed, call) % p) == rank;
    case Late::persistent: return rank == p - 1;
    case Late::random_subset: return mix(s.seed, call, rank) % 3 == 0;
  }
  return false;
}

void run_invariants(Checker& chk, MPI_Comm comm, const RunSpec& s, const std::string& name) {
  int p = 1, rank = 0;
  MPI_Comm_size(comm, &p);
  MPI_Comm_rank(comm, &rank);
  const int K = s.calls, n = p * K, H = s.handles;
  const double t0 = MPI_Wtime();
  papcoll_stale_config cfg;
  papcoll_stale_config_init(&cfg);
  cfg.staleness = s.staleness;
  cfg.deadline = s.deadline;
  cfg.algorithm = s.algorithm;
  std::vector<papcoll_stale> hs(static_cast<size_t>(H), nullptr);
  for (auto& h : hs)
    chk.expect_success(papcoll_stale_create(comm, n, MPI_LONG_LONG, MPI_SUM, &cfg, &h),
                       name + ": create");
  // results[h][c]: call c's result (c = K: the flush); counts likewise.
  std::vector<std::vector<long long>> results(static_cast<size_t>(H * (K + 1)),
                                              std::vector<long long>(static_cast<size_t>(n)));
  std::vector<long long> counts(static_cast<size_t>(H * (K + 1)), -1);
  std::vector<long long> send(static_cast<size_t>(n));
  bool send_intact = true, calls_ok = true;
  for (int k = 0; k < K; ++k) {
    if (is_late(s, k, rank, p)) std::this_thread::sleep_for(std::chrono::duration<double>(s.delay));
    for (int h = 0; h < H; ++h) {
      auto& out = results[static_cast<size_t>(h * (K + 1) + k)];
      long long* cnt = &counts[static_cast<size_t>(h * (K + 1) + k)];
      std::fill(send.begin(), send.end(), 0);
      send[static_cast<size_t>(rank * K + k)] = 1;
      int rc;
      if (k % 2 == 0) {  // in place
        out = send;
        rc = papcoll_stale_allreduce(hs[static_cast<size_t>(h)], MPI_IN_PLACE, out.data(), cnt);
      } else {
        rc = papcoll_stale_allreduce(hs[static_cast<size_t>(h)], send.data(), out.data(), cnt);
        for (int j = 0; j < n; ++j)
          if (send[static_cast<size_t>(j)] != (j == rank * K + k ? 1 : 0)) send_intact = false;
      }
      if (rc != PAPCOLL_SUCCESS) calls_ok = chk.expect_success(rc, name + ": call") && calls_ok;
    }
  }
  for (int h = 0; h < H; ++h)
    chk.expect_success(papcoll_stale_flush(hs[static_cast<size_t>(h)],
                                           results[static_cast<size_t>(h * (K + 1) + K)].data(),
                                           &counts[static_cast<size_t>(h * (K + 1) + K)]),
                       name + ": flush");
  for (auto& h : hs) {
    chk.expect_success(papcoll_stale_free(&h), name + ": free");
    chk.expect(h == nullptr, name + ": free sets the handle to NULL");
  }
  chk.expect(calls_ok, name + ": every call succeeded");
  chk.expect(send_intact, name + ": the send buffer is never written");

  // Identical on every rank: the element-wise minimum and maximum over the ranks equal ours.
  std::vector<long long> flat;
  for (const auto& r : results) flat.insert(flat.end(), r.begin(), r.end());
  flat.insert(flat.end(), counts.begin(), counts.end());
  std::vector<long long> lo(flat.size()), hi(flat.size());
  MPI_Allreduce(flat.data(), lo.data(), static_cast<int>(flat.size()), MPI_LONG_LONG, MPI_MIN,
                comm);
  MPI_Allreduce(flat.data(), hi.data(), static_cast<int>(flat.size()), MPI_LONG_LONG, MPI_MAX,
                comm);
  chk.expect(lo == flat && hi == flat, name + ": every rank has the same results and counts");

  bool once = true, counted = true, bounded = true, sync = true;
  long long excluded_calls = 0;
  std::string first_problem;
  for (int h = 0; h < H; ++h) {
    for (int c = 0; c <= K; ++c) {
      const auto& r = results[static_cast<size_t>(h * (K + 1) + c)];
      long long sum = 0;
      for (long long v : r) sum += v;
      if (sum != counts[static_cast<size_t>(h * (K + 1) + c)]) counted = false;
      if (c < K) {
        bool all_current = true;
        for (int q = 0; q < p; ++q)
          if (r[static_cast<size_t>(q * K + c)] != 1) all_current = false;
        if (!all_current) ++excluded_calls;
      }
    }
    for (int j = 0; j < n; ++j) {
      const int k = j % K;
      int found = 0, at = -1;
      for (int c = 0; c <= K; ++c) {
        const long long v = results[static_cast<size_t>(h * (K + 1) + c)][static_cast<size_t>(j)];
        if (v != 0 && v != 1) once = false;
        if (v == 1) {
          ++found;
          at = c;
        }
      }
      if (found != 1) {
        once = false;
        if (first_problem.empty())
          first_problem = "contribution of rank " + std::to_string(j / K) + " at call " +
                          std::to_string(k) + " is in " + std::to_string(found) + " results";
        continue;
      }
      // The flush is call K, one after the last call K - 1.
      if (at < k || at > k + s.staleness) {
        bounded = false;
        if (first_problem.empty())
          first_problem = "contribution of rank " + std::to_string(j / K) + " at call " +
                          std::to_string(k) + " is in call " + std::to_string(at);
      }
      if (s.staleness == 0 && at != k) sync = false;
    }
  }
  chk.expect(once, name + ": every contribution in exactly one result " + first_problem);
  chk.expect(counted, name + ": each count is the number of contributions in its result");
  chk.expect(bounded, name + ": no contribution later than the bound " + first_problem);
  chk.expect(sync, name + ": staleness 0 includes every rank at every call");
  if (s.staleness > 0 && s.late != Late::none && p > 1 && s.delay >= 0.01)
    chk.expect(excluded_calls > 0, name + ": some call went on without the late rank");
  if (rank == 0)
    std::printf("  %s: %lld of %d calls went on without someone (%.2f s)\n", name.c_str(),
                excluded_calls, K * H, MPI_Wtime() - t0);
}

void test_errors(Checker& chk) {
  papcoll_stale h = nullptr;
  papcoll_stale_config cfg;
  papcoll_stale_config_init(&cfg);
  chk.expect_code(papcoll_stale_create(MPI_COMM_WORLD, 4, MPI_INT, MPI_MAX, &cfg, &h),
                  PAPCOLL_ERR_ARG, "op other than MPI_SUM");
  chk.expect(h == nullptr, "no handle after an error");
  chk.expect_code(papcoll_stale_create(MPI_COMM_WORLD, 4, MPI_BYTE, MPI_SUM, &cfg, &h),
                  PAPCOLL_ERR_ARG, "MPI_BYTE");
  chk.expect_code(papcoll_stale_create(MPI_COMM_WORLD, -1, MPI_INT, MPI_SUM, &cfg, &h),
                  PAPCOLL_ERR_ARG, "negative count");
  papcoll_stale_config bad = cfg;
  bad.staleness = -1;
  chk.expect_code(papcoll_stale_create(MPI_COMM_WORLD, 4, MPI_INT, MPI_SUM, &bad, &h),
                  PAPCOLL_ERR_ARG, "negative staleness");
  bad = cfg;
  bad.deadline = -0.5;
  chk.expect_code(papcoll_stale_create(MPI_COMM_WORLD, 4, MPI_INT, MPI_SUM, &bad, &h),
                  PAPCOLL_ERR_ARG, "negative deadline");
  bad = cfg;
  bad.algorithm = "no-such-algorithm";
  chk.expect_code(papcoll_stale_create(MPI_COMM_WORLD, 4, MPI_INT, MPI_SUM, &bad, &h),
                  PAPCOLL_ERR_ALGORITHM, "unknown algorithm");
  bad = cfg;
  bad.version = 99;
  chk.expect_code(papcoll_stale_create(MPI_COMM_WORLD, 4, MPI_INT, MPI_SUM, &bad, &h),
                  PAPCOLL_ERR_ARG, "config version");
  int x[4] = {0, 0, 0, 0};
  chk.expect_code(papcoll_stale_allreduce(nullptr, x, x, nullptr), PAPCOLL_ERR_ARG, "NULL handle");
  chk.expect_code(papcoll_stale_free(nullptr), PAPCOLL_ERR_ARG, "free(NULL)");
  chk.expect_success(papcoll_stale_create(MPI_COMM_WORLD, 4, MPI_INT, MPI_SUM, nullptr, &h),
                     "create with the defaults");
  papcoll_stale copy = h;
  long long cnt = -1;
  chk.expect_success(papcoll_stale_allreduce(h, MPI_IN_PLACE, x, &cnt), "one call");
  chk.expect(cnt >= 1, "one call counts this rank at least when on time or alone");
  chk.expect_success(papcoll_stale_flush(h, x, &cnt), "flush");
  chk.expect_success(papcoll_stale_free(&h), "free");
  chk.expect_code(papcoll_stale_allreduce(copy, x, x, nullptr), PAPCOLL_ERR_ARG, "use after free");
}

// A handle freed while a contribution is pending: every rank says how many were dropped.
void test_free_with_pending(Checker& chk) {
  const int p = chk.size();
  papcoll_stale_config cfg;
  papcoll_stale_config_init(&cfg);
  cfg.staleness = 1;
  cfg.deadline = 0.001;
  papcoll_stale h = nullptr;
  chk.expect_success(papcoll_stale_create(MPI_COMM_WORLD, 2, MPI_DOUBLE, MPI_SUM, &cfg, &h),
                     "pending: create");
  double x[2] = {1.0, 2.0};
  // Rank p - 1 arrives far later than the deadline: call 1 completes without it, and nothing
  // includes its contribution afterwards.
  if (p > 1 && chk.rank() == p - 1) std::this_thread::sleep_for(std::chrono::milliseconds(300));
  long long cnt = -1;
  chk.expect_success(papcoll_stale_allreduce(h, MPI_IN_PLACE, x, &cnt), "pending: call");
  const int rc = papcoll_stale_free(&h);
  if (p == 1) {
    chk.expect_success(rc, "pending: alone nothing is pending");
  } else {
    chk.expect_code(rc, PAPCOLL_ERR_ARG, "pending: free names the dropped contribution");
    // At least rank p - 1's (another rank descheduled past the deadline may add its own).
    const std::string msg = papcoll_last_error();
    chk.expect(msg.find(" contribution(s) were still pending") != std::string::npos &&
                   msg.find("papcoll_stale_free: 0 ") == std::string::npos,
               "pending: the message counts them: " + msg);
  }
  chk.expect(h == nullptr, "pending: the handle is freed anyway");
}

// Floating point with averaging as the torch hook does: identical on every rank.
void test_doubles_identical(Checker& chk) {
  papcoll_stale_config cfg;
  papcoll_stale_config_init(&cfg);
  papcoll_stale h = nullptr;
  const int n = 1000;
  chk.expect_success(papcoll_stale_create(MPI_COMM_WORLD, n, MPI_DOUBLE, MPI_SUM, &cfg, &h),
                     "doubles: create");
  std::vector<double> x(n), all;
  for (int k = 0; k < 10; ++k) {
    for (int i = 0; i < n; ++i)
      x[static_cast<size_t>(i)] = static_cast<double>(mix(chk.rank(), k, i) % 1000003) / 7.0;
    if (chk.rank() == static_cast<int>(mix(5, k) % chk.size()))
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    long long cnt = 0;
    chk.expect_success(papcoll_stale_allreduce(h, MPI_IN_PLACE, x.data(), &cnt), "doubles: call");
    all.insert(all.end(), x.begin(), x.end());
    all.push_back(static_cast<double>(cnt));
  }
  x.assign(n, -1.0);
  long long cnt = 0;
  chk.expect_success(papcoll_stale_flush(h, x.data(), &cnt), "doubles: flush");
  all.insert(all.end(), x.begin(), x.end());
  chk.expect_success(papcoll_stale_free(&h), "doubles: free");
  std::vector<double> lo(all.size()), hi(all.size());
  MPI_Allreduce(all.data(), lo.data(), static_cast<int>(all.size()), MPI_DOUBLE, MPI_MIN,
                MPI_COMM_WORLD);
  MPI_Allreduce(all.data(), hi.data(), static_cast<int>(all.size()), MPI_DOUBLE, MPI_MAX,
                MPI_COMM_WORLD);
  chk.expect(lo == all && hi == all, "doubles: bit-identical results on every rank");
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  {
    Checker chk("test_stale");
    const int p = chk.size();
    test_errors(chk);
    RunSpec s;
    for (int S : {0, 1, 2}) {
      s.staleness = S;
      s.late = Late::random_rank;
      s.seed = 11 + S;
      run_invariants(chk, MPI_COMM_WORLD, s, "random late rank, S=" + std::to_string(S));
    }
    s = RunSpec{};
    s.late = Late::persistent;
    s.delay = 0.01;
    for (int S : {1, 3}) {
      s.staleness = S;
      run_invariants(chk, MPI_COMM_WORLD, s, "persistent slow rank, S=" + std::to_string(S));
    }
    s = RunSpec{};
    s.late = Late::random_subset;
    s.handles = 3;  // interleaved, as DDP's buckets
    s.algorithm = "ring";
    s.deadline = 0.0;
    s.calls = 16;
    run_invariants(chk, MPI_COMM_WORLD, s, "random subsets, 3 handles, ring, deadline 0");
    s = RunSpec{};
    s.late = Late::none;
    s.calls = 8;
    s.deadline = 0.05;
    run_invariants(chk, MPI_COMM_WORLD, s, "nobody late");
    test_free_with_pending(chk);
    test_doubles_identical(chk);
    // Sub-communicators: two halves run their own handles at once.
    if (p >= 4) {
      MPI_Comm half;
      MPI_Comm_split(MPI_COMM_WORLD, chk.rank() % 2, chk.rank(), &half);
      s = RunSpec{};
      s.seed = 99 + static_cast<std::uint64_t>(chk.rank() % 2);
      s.calls = 12;
      run_invariants(chk, half, s, "half communicator");
      MPI_Comm_free(&half);
    }
    const papcoll::stale::StaleCounters live = papcoll::stale::stale_counters();
    chk.expect(live.engines == 0 && live.threads == 0 && live.comms == 0,
               "no engine, thread or duplicate left: " + std::to_string(live.engines) + " " +
                   std::to_string(live.threads) + " " + std::to_string(live.comms));
    const int rc = chk.finish();
    MPI_Finalize();
    return rc;
  }
}
