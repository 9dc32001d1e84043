// papcoll_allreduce against MPI_Allreduce over algorithms x counts x block numbers x arrival
// patterns x in-place, rotating through datatype/op pairs. Integer results must match exactly;
// floating sums may differ by summation order, within a bound derived from the inputs.
// `--quick` runs a fifth of the cases (see main).
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "executor/comm_context.hpp"
#include "mpi_check.hpp"
#include "papcoll/papcoll.h"
#include "schedule/registry.hpp"

using papcoll_test::Checker;
using papcoll_test::mix;

namespace {

constexpr double kMagnitude = 1000;  // |input| bound of the floating-point and SUM cases

struct TypeOp {
  const char* name;
  MPI_Datatype type;
  MPI_Op op;
  int kind;  // 0 int, 1 long long, 2 float, 3 double
};

std::vector<TypeOp> type_ops() {
  return {{"int/sum", MPI_INT, MPI_SUM, 0},
          {"int/max", MPI_INT, MPI_MAX, 0},
          {"int/bxor", MPI_INT, MPI_BXOR, 0},
          {"long long/sum", MPI_LONG_LONG, MPI_SUM, 1},
          {"long long/max", MPI_LONG_LONG, MPI_MAX, 1},
          {"long long/bxor", MPI_LONG_LONG, MPI_BXOR, 1},
          {"float/sum", MPI_FLOAT, MPI_SUM, 2},
          {"double/sum", MPI_DOUBLE, MPI_SUM, 3}};
}

enum class Arrivals { none, one_late, random };

struct Case {
  const char* algo;  // nullptr: let papcoll choose
  int count;
  int blocks;
  Arrivals arrivals;
  bool in_place;
  TypeOp to;
  uint64_t seed;
  bool real_delay;  // the late rank really arrives late, not only in the prediction

  std::string describe() const {
    static const char* arr[] = {"none", "one-late", "random"};
    return std::string(algo ? algo : "NULL") + " count=" + std::to_string(count) +
           " blocks=" + std::to_string(blocks) + " arrivals=" + arr[static_cast<int>(arrivals)] +
           (in_place ? " in-place " : " ") + to.name;
  }
};

template <class T>
T input_value(const Case& c, int rank, int64_t i) {
  const uint64_t h = mix(c.seed, static_cast<uint64_t>(rank), static_cast<uint64_t>(i));
  if constexpr (std::is_floating_point_v<T>)
    return static_cast<T>((static_cast<double>(h % 2000001) / 1000.0) - kMagnitude);
  else
    return c.to.op == MPI_SUM ? static_cast<T>(static_cast<int64_t>(h % 2001) - 1000)
                              : static_cast<T>(h);
}

// Different summation orders of p values of magnitude <= kMagnitude differ by at most about
// p * eps * (p * kMagnitude); a lost or doubled contribution is off by far more.
template <class T>
bool close_enough(T got, T want, int p) {
  if constexpr (std::is_floating_point_v<T>) {
    const double tol = 4.0 * p * std::numeric_limits<T>::epsilon() * p * kMagnitude;
    return std::fabs(static_cast<double>(got) - static_cast<double>(want)) <= tol;
  } else {
    return got == want;
  }
}

// Arrival predictions. Random ones differ per rank and are not "agreed", so papcoll must
// broadcast rank 0's; one-late ones are the same everywhere and declared agreed.
std::vector<double> arrival_vector(const Case& c, int rank, int p, int* agreed) {
  std::vector<double> a;
  *agreed = 1;
  if (c.arrivals == Arrivals::one_late) {
    a.assign(static_cast<size_t>(p), 0.0);
    a[static_cast<size_t>(p / 2)] = 5e-3;
  } else if (c.arrivals == Arrivals::random) {
    *agreed = 0;
    for (int i = 0; i < p; ++i)
      a.push_back(static_cast<double>(mix(c.seed, static_cast<uint64_t>(rank), 77 + i) % 10000) *
                  1e-6);
  }
  return a;
}

template <class T>
void run_typed(Checker& chk, const Case& c) {
  const int rank = chk.rank(), p = chk.size();
  const size_t n = static_cast<size_t>(c.count);
  std::vector<T> send(n), want(n), got(n);
  for (size_t i = 0; i < n; ++i) send[i] = input_value<T>(c, rank, static_cast<int64_t>(i));
  const std::vector<T> send_before = send;
  MPI_Allreduce(send.data(), want.data(), c.count, c.to.type, c.to.op, MPI_COMM_WORLD);

  int agreed = 1;
  const std::vector<double> arrivals = arrival_vector(c, rank, p, &agreed);
  papcoll_options opt;
  papcoll_options_init(&opt);
  opt.algorithm = c.algo;
  opt.blocks = c.blocks;
  opt.arrivals = arrivals.empty() ? nullptr : arrivals.data();
  opt.arrivals_agreed = agreed;
  if (c.real_delay && rank == p / 2) usleep(2000);

  int rc;
  if (c.in_place) {
    got = send;
    rc = papcoll_allreduce(MPI_IN_PLACE, got.data(), c.count, c.to.type, c.to.op, MPI_COMM_WORLD,
                           &opt);
  } else {
    if (n > 0) std::memset(got.data(), 0x5A, n * sizeof(T));
    rc = papcoll_allreduce(send.data(), got.data(), c.count, c.to.type, c.to.op, MPI_COMM_WORLD,
                           &opt);
  }
  std::string what = c.describe();
  if (rc != PAPCOLL_SUCCESS) {
    chk.expect_success(rc, what);
  } else {
    size_t bad = n;
    for (size_t i = 0; i < n && bad == n; ++i)
      if (!close_enough(got[i], want[i], p)) bad = i;
    if (bad < n)
      what += ": element " + std::to_string(bad) + " is " + std::to_string(got[bad]) +
              ", MPI_Allreduce gives " + std::to_string(want[bad]);
    chk.expect(bad == n, what);
  }
  if (!c.in_place)
    chk.expect(n == 0 || std::memcmp(send.data(), send_before.data(), n * sizeof(T)) == 0,
               c.describe() + ": send buffer was modified");
}

// `auto` with the agreed arrival times `arrivals` (kept by the caller).
papcoll_options auto_with_arrivals(const std::vector<double>& arrivals) {
  papcoll_options opt;
  papcoll_options_init(&opt);
  opt.algorithm = "auto";
  opt.arrivals = arrivals.data();
  opt.arrivals_count = static_cast<int>(arrivals.size());
  opt.arrivals_agreed = 1;
  return opt;
}

// A repeated call of `auto` with agreed arrival times allocates nothing for them: they and the
// key of auto's memory live in the communicator's storage, kept from one call to the next (under
// SimGrid's one heap for every rank such an allocation cost one rank in a thousand a millisecond).
void check_repeated_call_reuses_storage(Checker& chk) {
  const int p = chk.size(), rank = chk.rank();
  if (p < 2) return;
  std::vector<double> arrivals(static_cast<size_t>(p), 0.0);
  arrivals[1] = 0.05;
  papcoll_options opt = auto_with_arrivals(arrivals);
  std::vector<long long> in(1000), out(1000);
  const double* spare = nullptr;
  const char* key = nullptr;
  for (int call = 0; call < 3; ++call) {
    for (size_t i = 0; i < in.size(); ++i) in[i] = rank * 1000 + static_cast<long long>(i) + call;
    const int rc = papcoll_allreduce(in.data(), out.data(), 1000, MPI_LONG_LONG, MPI_SUM,
                                     MPI_COMM_WORLD, &opt);
    bool exact = rc == PAPCOLL_SUCCESS;
    for (size_t i = 0; i < out.size() && exact; ++i)
      exact = out[i] == 1000LL * p * (p - 1) / 2 + p * (static_cast<long long>(i) + call);
    chk.expect(exact, "repeated auto call " + std::to_string(call) + ": exact sums");
    papcoll::CommContext* ctx = nullptr;
    if (!chk.expect(papcoll::comm_context(MPI_COMM_WORLD, &ctx).ok() && ctx != nullptr,
                    "repeated auto call: the communicator's context"))
      return;
    chk.expect(ctx->arrivals_spare.capacity() >= static_cast<size_t>(p),
               "repeated auto call: the arrival times' storage is kept for the next call");
    if (call == 2) {
      chk.expect(ctx->arrivals_spare.data() == spare,
                 "repeated auto call: its arrival times reuse the previous call's storage");
      chk.expect(ctx->remembered_choices.key_buffer().data() == key,
                 "repeated auto call: the memory's key reuses the previous call's buffer");
    }
    spare = ctx->arrivals_spare.data();
    key = ctx->remembered_choices.key_buffer().data();
  }
  // An arrival-aware row called again on the same pattern takes the latest call's schedule
  // without building the cache key (its plan): from its second call on the cache is not asked.
  opt.algorithm = "prr";
  int64_t asked = -1;
  for (int call = 0; call < 4; ++call) {
    const int rc = papcoll_allreduce(in.data(), out.data(), 1000, MPI_LONG_LONG, MPI_SUM,
                                     MPI_COMM_WORLD, &opt);
    bool exact = rc == PAPCOLL_SUCCESS;
    for (size_t i = 0; i < out.size() && exact; ++i)
      exact = out[i] == 1000LL * p * (p - 1) / 2 + p * (static_cast<long long>(i) + 2);
    chk.expect(exact, "repeated prr call " + std::to_string(call) + ": exact sums");
    papcoll::CommContext* ctx = nullptr;
    if (!papcoll::comm_context(MPI_COMM_WORLD, &ctx).ok() || ctx == nullptr) return;
    const int64_t now = ctx->schedules.hits() + ctx->schedules.misses();
    if (call >= 2)
      chk.expect(now == asked, "repeated prr call: the latest schedule answers, the cache is not "
                               "asked (" +
                                   std::to_string(now - asked) + " lookups)");
    asked = now;
  }
}

// A call on the communicator of the thread's last call takes its size and rank from the
// context it remembered (no MPI query, comm_context.hpp). MPI reuses a freed communicator's
// handle: a communicator of another size, or an intercommunicator, made after a free may have the
// old handle, and must be checked afresh (exact sums over its own ranks; the intercommunicator
// refused).
void check_reused_communicator_handles(Checker& chk) {
  const int p = chk.size(), rank = chk.rank();
  papcoll_options opt;
  papcoll_options_init(&opt);
  opt.algorithm = "auto";
  for (int round = 0; round < 3; ++round) {
    MPI_Comm world_dup = MPI_COMM_NULL, half = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &world_dup);
    long long mine = rank + 1, sum = 0;
    int rc = papcoll_allreduce(&mine, &sum, 1, MPI_LONG_LONG, MPI_SUM, world_dup, &opt);
    chk.expect(rc == PAPCOLL_SUCCESS && sum == 1LL * p * (p + 1) / 2,
               "reused handles, round " + std::to_string(round) + ": the whole world's sum");
    MPI_Comm_free(&world_dup);
    // Ranks 0 .. p/2 - 1 and the others: sizes other than p, ranks other than the world's.
    const int color = rank < p / 2 ? 0 : 1;
    MPI_Comm_split(MPI_COMM_WORLD, color, -rank, &half);
    int hsize = 0, hrank = -1;
    MPI_Comm_size(half, &hsize);
    MPI_Comm_rank(half, &hrank);
    mine = hrank + 1;
    sum = 0;
    rc = papcoll_allreduce(&mine, &sum, 1, MPI_LONG_LONG, MPI_SUM, half, &opt);
    chk.expect(rc == PAPCOLL_SUCCESS && sum == 1LL * hsize * (hsize + 1) / 2,
               "reused handles, round " + std::to_string(round) + ": the half's own sum");
    if (p >= 2) {
      MPI_Comm inter = MPI_COMM_NULL;
      MPI_Comm other_half = MPI_COMM_NULL;
      MPI_Comm_dup(half, &other_half);
      MPI_Comm_free(&half);  // its handle free for the intercommunicator
      // Each half's leader is its local rank 0: the highest world rank of the half (key -rank).
      MPI_Intercomm_create(other_half, 0, MPI_COMM_WORLD, color == 0 ? p - 1 : p / 2 - 1, 11,
                           &inter);
      rc = papcoll_allreduce(&mine, &sum, 1, MPI_LONG_LONG, MPI_SUM, inter, &opt);
      chk.expect(rc == PAPCOLL_ERR_ARG, "reused handles, round " + std::to_string(round) +
                                            ": an intercommunicator refused");
      MPI_Comm_free(&inter);
      MPI_Comm_free(&other_half);
    } else {
      MPI_Comm_free(&half);
    }
  }
}

// papcoll_last_executor_costs: what `auto` measured once per communicator and weighed the call
// with (docs/calibration.md), the same bits on every rank; a row named in the options runs with
// the same step overhead (its block counts read it), the library's collective with none;
// argument errors.
void check_last_executor_costs(Checker& chk) {
  const int p = chk.size();
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  std::vector<double> arrivals(static_cast<size_t>(p), 0.0);
  arrivals[static_cast<size_t>(p - 1)] = 0.02;
  papcoll_options opt = auto_with_arrivals(arrivals);
  std::vector<long long> in(1000, chk.rank()), out(1000);
  auto costs_after = [&](const char* algo, const std::string& what) {
    opt.algorithm = algo;
    const int rc =
        papcoll_allreduce(in.data(), out.data(), 1000, MPI_LONG_LONG, MPI_SUM, comm, &opt);
    chk.expect(rc == PAPCOLL_SUCCESS && out[999] == 1LL * p * (p - 1) / 2, what + ": exact sums");
    papcoll_executor_costs costs;
    papcoll_executor_costs_init(&costs);
    chk.expect(papcoll_last_executor_costs(&costs) == PAPCOLL_SUCCESS, what + ": reported");
    return costs;
  };
  const papcoll_executor_costs a = costs_after("auto", "executor costs after auto");
  const double mine[3] = {a.step_overhead, a.exchange_alpha, a.exchange_beta};
  std::vector<double> all(3 * static_cast<size_t>(p));
  MPI_Allgather(mine, 3, MPI_DOUBLE, all.data(), 3, MPI_DOUBLE, comm);
  bool same = true;
  for (int r = 0; r < p; ++r) same = same && std::memcmp(&all[3 * r], mine, sizeof mine) == 0;
  chk.expect(same, "executor costs after auto: the same bits on every rank");
  chk.expect(std::isfinite(a.step_overhead) && a.step_overhead >= 0 && a.exchange_alpha >= 0 &&
                 a.exchange_beta >= 0,
             "executor costs after auto: finite, not negative");
  papcoll::CommContext* ctx = nullptr;
  if (chk.expect(papcoll::comm_context(comm, &ctx).ok() && ctx != nullptr,
                 "executor costs: the communicator's context")) {
    // Measured where ranks have cores of their own (one rank late: auto weighs schedules).
    if (p >= 2 && !ctx->cores_shared)
      chk.expect(ctx->ring_round_known && ctx->ring_round > 0,
                 "executor costs after auto: the ring was timed");
    if (ctx->cores_shared)
      chk.expect(a.step_overhead == 0, "executor costs after auto: none where cores are shared");
  }
  const papcoll_executor_costs named = costs_after("prr", "executor costs after prr");
  chk.expect(std::memcmp(&named.step_overhead, &a.step_overhead, sizeof(double)) == 0,
             "executor costs after prr: auto's step overhead");
  const papcoll_executor_costs n = costs_after("native", "executor costs after native");
  chk.expect(n.step_overhead == 0 && n.exchange_alpha == 0 && n.exchange_beta == 0,
             "executor costs after native: none");
  chk.expect(papcoll_last_executor_costs(nullptr) == PAPCOLL_ERR_ARG, "executor costs: NULL");
  papcoll_executor_costs bad;
  papcoll_executor_costs_init(&bad);
  bad.version = 0;
  chk.expect(papcoll_last_executor_costs(&bad) == PAPCOLL_ERR_ARG,
             "executor costs: an unknown version");
  MPI_Comm_free(&comm);
}

void run_case(Checker& chk, const Case& c) {
  switch (c.to.kind) {
    case 0: run_typed<int>(chk, c); break;
    case 1: run_typed<long long>(chk, c); break;
    case 2: run_typed<float>(chk, c); break;
    default: run_typed<double>(chk, c); break;
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int status = 0;
  {
    Checker chk("test_allreduce");
    const int p = chk.size();
    std::vector<const char*> algos;
    for (const papcoll::AlgorithmInfo* a : papcoll::algorithms_for(papcoll::Collective::allreduce))
      algos.push_back(a->name);
    algos.push_back("auto");
    algos.push_back("native");
    algos.push_back(nullptr);
    const std::vector<TypeOp> tos = type_ops();

    // --quick (the multi-node harness, tests/multinode/programs.txt, where every message between
    // nodes goes through TCP): fewer counts, block numbers and arrival patterns; every algorithm,
    // every datatype/op pair and the large counts below still run.
    const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
    std::vector<int> counts = quick ? std::vector<int>{0, p - 1, 1000}
                                    : std::vector<int>{0, 1, p - 1, p, 7, 1000};
    std::sort(counts.begin(), counts.end());
    counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
    const std::vector<Arrivals> patterns =
        quick ? std::vector<Arrivals>{Arrivals::none, Arrivals::one_late}
              : std::vector<Arrivals>{Arrivals::none, Arrivals::one_late, Arrivals::random};
    uint64_t seed = 1;
    for (const char* algo : algos)
      for (int count : counts)
        for (int blocks : {0, 1, 3, 2 * p + 1, count + 5})
          for (Arrivals arr : patterns)
            for (bool in_place : {false, true}) {
              if (quick && (blocks == 1 || blocks == 2 * p + 1)) continue;
              // MPI's own collective ignores blocks; NULL is "auto", which the loop covers fully.
              const bool blocks_irrelevant = algo == nullptr || !std::strcmp(algo, "native");
              if (blocks_irrelevant && blocks != 0) continue;
              const TypeOp& to = tos[seed % tos.size()];
              const bool delay = arr == Arrivals::one_late && blocks == 0 && count == 1000;
              run_case(chk, Case{algo, count, blocks, arr, in_place, to, seed++, delay});
            }

    // Every datatype/op pair with every algorithm, on a count with uneven blocks.
    for (const char* algo : algos)
      for (const TypeOp& to : tos)
        for (int blocks : {0, 3})
          run_case(chk,
                   Case{algo, 1001, blocks, Arrivals::one_late, blocks == 3, to, seed++, false});

    // Large and odd counts: long messages, uneven blocks. Only a few algorithms, to stay fast on
    // oversubscribed cores; the small cases above already cover every algorithm's logic. On a
    // layout of several ranks per node (PAPCOLL_NODES) two-level's closing broadcast inside a
    // node goes out in chunks at these sizes (emit_node_broadcasts).
    const TypeOp int_sum = tos[0], double_sum = tos[7];
    for (int count : {1000003, 1 << 20})
      for (const char* algo : {"ring", "prr", "rabenseifner", "two-level", "two-level-rsag"}) {
        const Arrivals arr = std::strcmp(algo, "prr") == 0 ? Arrivals::one_late : Arrivals::none;
        run_case(chk, Case{algo, count, 0, arr, false, int_sum, seed++, arr != Arrivals::none});
        run_case(chk, Case{algo, count, 2 * p + 1, arr, true, double_sum, seed++, false});
      }
    check_repeated_call_reuses_storage(chk);
    check_reused_communicator_handles(chk);
    check_last_executor_costs(chk);
    status = chk.finish();
  }
  MPI_Finalize();
  return status;
}
