// papcoll_reduce over every reduce algorithm, "auto", "native" and NULL x every root x counts x
// block numbers (N = 1, N > count, ...) x arrival patterns (none, one late, random and not agreed)
// x MPI_IN_PLACE at the root, rotating through datatype/op pairs. Every rank can compute every
// rank's input (mix() of the case's seed), so the root checks its result locally: integers
// exactly, floating sums within a bound of the summation order. Also: the send buffer is never
// written, a non-root's recvbuf is never touched (and may be NULL), the executor on schedules with
// empty blocks (more blocks than elements), a non-commutative op, and the error codes.
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "executor/executor_reduce.hpp"
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
          {"long long/bxor", MPI_LONG_LONG, MPI_BXOR, 1},
          {"float/sum", MPI_FLOAT, MPI_SUM, 2},
          {"double/sum", MPI_DOUBLE, MPI_SUM, 3},
          {"double/max", MPI_DOUBLE, MPI_MAX, 3}};
}

enum class Arrivals { none, one_late, random };

struct Case {
  const char* algo;  // nullptr: let papcoll choose
  int root;
  int count;
  int blocks;
  Arrivals arrivals;
  bool in_place;  // at the root
  TypeOp to;
  uint64_t seed;
  bool real_delay = false;  // the late rank really arrives late, not only in the prediction
  bool null_recv = false;   // non-roots pass recvbuf = NULL (else a sentinel buffer)

  std::string describe() const {
    static const char* arr[] = {"none", "one-late", "random"};
    return std::string(algo ? algo : "NULL") + " root=" + std::to_string(root) +
           " count=" + std::to_string(count) + " blocks=" + std::to_string(blocks) +
           " arrivals=" + arr[static_cast<int>(arrivals)] + (in_place ? " in-place " : " ") +
           to.name;
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

template <class T>
T combine(MPI_Op op, T a, T b) {
  if (op == MPI_MAX) return std::max(a, b);
  if constexpr (!std::is_floating_point_v<T>)
    if (op == MPI_BXOR) return a ^ b;
  return a + b;
}

// Element i of the reduction, computed in double for floating sums (then any summation order of
// p values of magnitude <= kMagnitude is within about p * eps * p * kMagnitude of it).
template <class T>
bool element_ok(const Case& c, int p, int64_t i, T got, double* want_out) {
  if constexpr (std::is_floating_point_v<T>) {
    double want = input_value<T>(c, 0, i);
    for (int r = 1; r < p; ++r)
      want = c.to.op == MPI_MAX ? std::max(want, static_cast<double>(input_value<T>(c, r, i)))
                                : want + static_cast<double>(input_value<T>(c, r, i));
    *want_out = want;
    const double tol = 4.0 * p * std::numeric_limits<T>::epsilon() * p * kMagnitude;
    return std::fabs(static_cast<double>(got) - want) <= tol;
  } else {
    T want = input_value<T>(c, 0, i);
    for (int r = 1; r < p; ++r) want = combine(c.to.op, want, input_value<T>(c, r, i));
    *want_out = static_cast<double>(want);
    return got == want;
  }
}

// Arrival predictions. Random ones differ per rank and are not "agreed", so papcoll must broadcast
// rank 0's; one-late ones are the same everywhere and declared agreed.
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
  const bool is_root = rank == c.root;
  const size_t n = static_cast<size_t>(c.count);
  std::vector<T> send(n);
  for (size_t i = 0; i < n; ++i) send[i] = input_value<T>(c, rank, static_cast<int64_t>(i));
  const std::vector<T> send_before = send;
  // The root's output; a non-root's recvbuf is a sentinel (must stay as it is) or NULL.
  std::vector<T> got(is_root || !c.null_recv ? n : 0);
  if (!got.empty()) std::memset(got.data(), 0x5A, n * sizeof(T));
  if (is_root && c.in_place) got = send;
  const std::vector<T> got_before = got;

  int agreed = 1;
  const std::vector<double> arrivals = arrival_vector(c, rank, p, &agreed);
  papcoll_options opt;
  papcoll_options_init(&opt);
  opt.algorithm = c.algo;
  opt.blocks = c.blocks;
  opt.arrivals = arrivals.empty() ? nullptr : arrivals.data();
  opt.arrivals_agreed = agreed;
  if (c.real_delay && rank == p / 2) usleep(2000);

  const void* sendbuf = is_root && c.in_place ? MPI_IN_PLACE
                                              : static_cast<const void*>(send.data());
  void* recvbuf = got.empty() ? nullptr : got.data();
  const int rc =
      papcoll_reduce(sendbuf, recvbuf, c.count, c.to.type, c.to.op, c.root, MPI_COMM_WORLD, &opt);
  std::string what = c.describe();
  if (rc != PAPCOLL_SUCCESS) {
    chk.expect_success(rc, what);
  } else if (is_root) {
    size_t bad = n;
    double want = 0;
    for (size_t i = 0; i < n && bad == n; ++i)
      if (!element_ok<T>(c, p, static_cast<int64_t>(i), got[i], &want)) bad = i;
    if (bad < n)
      what += ": element " + std::to_string(bad) + " is " + std::to_string(got[bad]) +
              ", expected " + std::to_string(want);
    chk.expect(bad == n, what);
  } else {
    chk.expect(got.empty() || std::memcmp(got.data(), got_before.data(), n * sizeof(T)) == 0,
               what + ": a non-root's recvbuf was written");
  }
  // (One check on every rank: all ranks must record the same number.)
  chk.expect((is_root && c.in_place) || n == 0 ||
                 std::memcmp(send.data(), send_before.data(), n * sizeof(T)) == 0,
             c.describe() + ": send buffer was modified");
}

void run_case(Checker& chk, const Case& c) {
  switch (c.to.kind) {
    case 0: run_typed<int>(chk, c); break;
    case 1: run_typed<long long>(chk, c); break;
    case 2: run_typed<float>(chk, c); break;
    default: run_typed<double>(chk, c); break;
  }
}

// The executor's reduce wrapper on generated schedules with more blocks than elements (the API
// caps blocks at count, so only this reaches empty blocks): some messages have no elements and
// both sides skip them.
void empty_blocks(Checker& chk) {
  const int rank = chk.rank(), p = chk.size();
  if (p == 1) return;
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  papcoll::ScratchBuffer scratch, work;
  papcoll::DatatypeLayout layout;
  papcoll::query_layout(MPI_INT, &layout);
  uint64_t seed = 9000;
  for (const papcoll::AlgorithmInfo* a : papcoll::algorithms_for(papcoll::Collective::reduce))
    for (int count : {1, 3})
      for (int blocks : {count + 1, 2 * p + 3}) {
        const int root = static_cast<int>(seed % static_cast<uint64_t>(p));
        papcoll::GeneratorInput in;
        in.p = p;
        in.root = root;
        in.blocks = blocks;
        in.bytes = count * 4.0;
        if (a->uses_arrivals) {
          in.arrivals.assign(static_cast<size_t>(p), 0.0);
          in.arrivals[static_cast<size_t>((root + 1) % p)] = 1e-3;
        }
        const papcoll::Schedule s = papcoll::generate_schedule(*a, in);
        std::vector<int> send(static_cast<size_t>(count)), got(static_cast<size_t>(count), -1);
        for (int i = 0; i < count; ++i) send[i] = static_cast<int>(mix(seed, rank, i) % 1000);
        const std::vector<int> send_before = send;
        const papcoll::MpiStatus st = papcoll::execute_reduce(s.ranks[rank], blocks, rank, root,
                                                              send.data(), got.data(), count,
                                                              layout, MPI_SUM, comm, scratch, work);
        bool ok = st.ok() && send == send_before;
        if (ok && rank == root)
          for (int i = 0; i < count; ++i) {
            int want = 0;
            for (int r = 0; r < p; ++r) want += static_cast<int>(mix(seed, r, i) % 1000);
            ok = ok && got[i] == want;
          }
        if (ok && rank != root)
          ok = std::all_of(got.begin(), got.end(), [](int v) { return v == -1; });
        chk.expect(ok, std::string("executor, empty blocks: ") + a->name +
                           " root=" + std::to_string(root) + " count=" + std::to_string(count) +
                           " blocks=" + std::to_string(blocks) +
                           (st.ok() ? "" : ": " + papcoll::describe(st)));
        ++seed;
      }
  MPI_Comm_free(&comm);
}

// 2x2 matrices of unsigned ints with multiplication mod 2^32: associative, not commutative.
void mat_mul(void* in, void* inout, int* len, MPI_Datatype*) {
  auto* a = static_cast<unsigned*>(in);
  auto* b = static_cast<unsigned*>(inout);
  for (int k = 0; k < *len; ++k, a += 4, b += 4) {
    const unsigned r[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                           a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
    std::memcpy(b, r, sizeof r);
  }
}

papcoll_options with_algo(const char* algo) {
  papcoll_options o;
  papcoll_options_init(&o);
  o.algorithm = algo;
  return o;
}

// A non-commutative op: refused by every schedule algorithm, MPI_Reduce's result with "auto",
// "native" and NULL.
void non_commutative(Checker& chk) {
  const int rank = chk.rank(), p = chk.size();
  MPI_Datatype mat;
  MPI_Type_contiguous(4, MPI_UNSIGNED, &mat);
  MPI_Type_commit(&mat);
  MPI_Op op;
  MPI_Op_create(mat_mul, 0, &op);
  constexpr int kCount = 5;
  std::vector<unsigned> in(4 * kCount), want(4 * kCount), got(4 * kCount);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<unsigned>(mix(rank, i, 3));
  const int root = p - 1;
  MPI_Reduce(in.data(), want.data(), kCount, mat, op, root, MPI_COMM_WORLD);
  for (const papcoll::AlgorithmInfo* a : papcoll::algorithms_for(papcoll::Collective::reduce)) {
    const papcoll_options o = with_algo(a->name);
    chk.expect_code(papcoll_reduce(in.data(), got.data(), kCount, mat, op, root, MPI_COMM_WORLD,
                                   &o),
                    PAPCOLL_ERR_OP, std::string("non-commutative op with ") + a->name);
  }
  for (const char* algo : {"auto", "native", static_cast<const char*>(nullptr)}) {
    const papcoll_options o = with_algo(algo);
    std::fill(got.begin(), got.end(), 0u);
    const int rc = papcoll_reduce(in.data(), got.data(), kCount, mat, op, root, MPI_COMM_WORLD, &o);
    chk.expect_success(rc, std::string("non-commutative op with ") + (algo ? algo : "NULL"));
    chk.expect(rank != root || got == want, std::string("non-commutative op with ") +
                                                (algo ? algo : "NULL") +
                                                ": result differs from MPI_Reduce");
  }
  MPI_Op_free(&op);
  MPI_Type_free(&mat);
}

void errors(Checker& chk) {
  const int rank = chk.rank(), p = chk.size();
  int x[4] = {1, 2, 3, 4}, y[4] = {0};
  const papcoll_options bin = with_algo("binomial");
  for (int root : {-1, p, p + 7})
    chk.expect_code(papcoll_reduce(x, y, 4, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, &bin),
                    PAPCOLL_ERR_ARG, "root " + std::to_string(root) + " out of range");
  chk.expect(std::strstr(papcoll_last_error(), "root") != nullptr,
             std::string("root message names the root: ") + papcoll_last_error());
  chk.expect_code(papcoll_reduce(x, y, -1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &bin),
                  PAPCOLL_ERR_ARG, "negative count");
  chk.expect_code(papcoll_reduce(x, y, 4, MPI_INT, MPI_SUM, 0, MPI_COMM_NULL, &bin),
                  PAPCOLL_ERR_ARG, "MPI_COMM_NULL");
  chk.expect_code(papcoll_reduce(x, y, 4, MPI_DATATYPE_NULL, MPI_SUM, 0, MPI_COMM_WORLD, &bin),
                  PAPCOLL_ERR_ARG, "MPI_DATATYPE_NULL");
  chk.expect_code(papcoll_reduce(x, y, 4, MPI_INT, MPI_OP_NULL, 0, MPI_COMM_WORLD, &bin),
                  PAPCOLL_ERR_ARG, "MPI_OP_NULL");
  papcoll_options o = bin;
  o.version = PAPCOLL_OPTIONS_VERSION + 1;
  chk.expect_code(papcoll_reduce(x, y, 4, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &o), PAPCOLL_ERR_ARG,
                  "options version mismatch");
  o = bin;
  o.blocks = -1;
  chk.expect_code(papcoll_reduce(x, y, 4, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &o), PAPCOLL_ERR_ARG,
                  "negative blocks");
  o = bin;
  o.beta = std::numeric_limits<double>::infinity();
  chk.expect_code(papcoll_reduce(x, y, 4, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &o), PAPCOLL_ERR_ARG,
                  "infinite beta");
  // Every rank fails before communicating: the root for its NULL recvbuf, the others for a NULL
  // send buffer or MPI_IN_PLACE, which only the root may pass.
  const int root = p - 1;
  chk.expect_code(papcoll_reduce(rank == root ? x : nullptr, rank == root ? nullptr : y, 4, MPI_INT,
                                 MPI_SUM, root, MPI_COMM_WORLD, &bin),
                  PAPCOLL_ERR_ARG, "NULL recvbuf at the root / NULL sendbuf elsewhere");
  chk.expect_code(papcoll_reduce(MPI_IN_PLACE, rank == root ? nullptr : y, 4, MPI_INT, MPI_SUM,
                                 root, MPI_COMM_WORLD, &bin),
                  PAPCOLL_ERR_ARG, "MPI_IN_PLACE at a non-root / NULL recvbuf at the root");
  if (rank != root)
    chk.expect(std::strstr(papcoll_last_error(), "MPI_IN_PLACE") != nullptr,
               std::string("message names MPI_IN_PLACE: ") + papcoll_last_error());
  else
    chk.expect(true, "");
  o = with_algo("no-such-algorithm");
  chk.expect_code(papcoll_reduce(x, y, 4, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &o),
                  PAPCOLL_ERR_ALGORITHM, "unknown algorithm");
  chk.expect(std::strstr(papcoll_last_error(), "clairvoyant") != nullptr,
             std::string("message lists the algorithms: ") + papcoll_last_error());
  o = with_algo("prr");  // an allreduce algorithm, not a reduce one
  chk.expect_code(papcoll_reduce(x, y, 4, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &o),
                  PAPCOLL_ERR_ALGORITHM, "allreduce-only algorithm");
  // Arrival times that every rank sees as bad (agreed, or rank 0's after the broadcast).
  std::vector<double> arr(static_cast<size_t>(p), 0.0);
  arr[0] = std::numeric_limits<double>::quiet_NaN();
  for (const char* algo : {"clairvoyant", "auto"}) {
    o = with_algo(algo);
    o.arrivals = arr.data();
    o.arrivals_agreed = algo[0] == 'a';  // both paths: agreed as given, and rank 0's broadcast
    chk.expect_code(papcoll_reduce(x, y, 4, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &o),
                    PAPCOLL_ERR_ARRIVALS, std::string("NaN arrival with ") + algo);
  }
  arr[0] = 0;
  o = with_algo("clairvoyant");
  o.arrivals = arr.data();
  o.arrivals_count = p + 1;
  chk.expect_code(papcoll_reduce(x, y, 4, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &o),
                  PAPCOLL_ERR_ARRIVALS, "wrong arrivals_count");
  // Count 0: nothing to do, any buffers, every algorithm.
  o = with_algo("clairvoyant");
  chk.expect_success(papcoll_reduce(nullptr, nullptr, 0, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &o),
                     "count 0 with NULL buffers");
  // papcoll_algorithms lists the reduce rows.
  const char* names = papcoll_algorithms("reduce");
  chk.expect(names != nullptr && std::strstr(names, "clairvoyant") &&
                 std::strstr(names, "radix-k") && std::strstr(names, "native") &&
                 std::strstr(names, "auto"),
             std::string("papcoll_algorithms(\"reduce\"): ") + (names ? names : "NULL"));
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int status = 0;
  {
    Checker chk("test_reduce");
    const int p = chk.size();
    std::vector<const char*> algos;
    for (const papcoll::AlgorithmInfo* a : papcoll::algorithms_for(papcoll::Collective::reduce))
      algos.push_back(a->name);
    algos.push_back("auto");
    algos.push_back("native");
    algos.push_back(nullptr);
    const std::vector<TypeOp> tos = type_ops();

    std::vector<int> counts = {0, 1, p - 1, p, 7};
    std::sort(counts.begin(), counts.end());
    counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
    uint64_t seed = 1;
    // Every algorithm x every root x every small count x block numbers (default, N = 1, 3, N >
    // count); arrival pattern, in-place and type/op rotate with the seed so that every algorithm
    // meets each of them at several roots.
    for (const char* algo : algos) {
      const bool blocks_irrelevant = algo == nullptr || !std::strcmp(algo, "native");
      for (int root = 0; root < p; ++root)
        for (int count : counts)
          for (int blocks : {0, 1, 3, count + 5}) {
            if (blocks_irrelevant && blocks != 0) continue;
            Case c{algo,
                   root,
                   count,
                   blocks,
                   static_cast<Arrivals>(seed % 3),
                   (seed / 3) % 2 == 1,
                   tos[seed % tos.size()],
                   seed};
            c.null_recv = (seed / 7) % 2 == 1;
            ++seed;
            run_case(chk, c);
          }
    }

    // Every algorithm with every arrival pattern (two of them really late) and both in-place
    // modes on a count with uneven blocks.
    for (const char* algo : algos)
      for (Arrivals arr : {Arrivals::none, Arrivals::one_late, Arrivals::random})
        for (bool in_place : {false, true}) {
          Case c{algo,     static_cast<int>(seed % p), 1001, in_place ? 0 : 2 * p + 1, arr,
                 in_place, tos[seed % tos.size()],     seed};
          c.real_delay = arr == Arrivals::one_late;
          ++seed;
          run_case(chk, c);
        }

    // A long odd vector once per algorithm, at a root that rotates (long messages, uneven
    // blocks, the work buffer of the non-roots).
    for (const char* algo : algos) {
      const TypeOp& to = tos[seed % 2 == 0 ? 0 : 6];  // int/sum or double/sum
      Case c{algo, static_cast<int>(seed % p), 1000003, 0, Arrivals::one_late, seed % 3 == 0, to,
             seed};
      ++seed;
      run_case(chk, c);
    }

    empty_blocks(chk);
    non_commutative(chk);
    errors(chk);
    status = chk.finish();
  }
  MPI_Finalize();
  return status;
}
