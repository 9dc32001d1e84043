// papcoll_allgatherv over every all-gatherv algorithm, "native" and "auto" x input shapes
// (regular, irregular: rank i contributes in proportion to i, degenerate: one rank contributes
// everything, random with zeros, all empty) x displacement layouts (packed, reversed with gaps)
// x blocks per rank (default, 1, 3, 40: more than the small portions have) x MPI_IN_PLACE. Every
// rank knows every rank's data (mix() of the case's seed), so it checks recvbuf exactly, gaps
// included (they must stay untouched). Also a sendtype that differs from recvtype, a recvtype with
// holes, skewed back-to-back calls on a sub-communicator that is then freed (on one node these run
// over the shared-memory window; ctest also runs the program with PAPCOLL_SHARED_MEMORY=0), and the
// error codes.
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "mpi_check.hpp"
#include "papcoll/papcoll.h"

using papcoll_test::Checker;
using papcoll_test::mix;

namespace {

constexpr int kSentinel = -99;

std::vector<std::string> algorithms() {
  std::vector<std::string> names;
  std::stringstream list(papcoll_algorithms("allgatherv"));
  for (std::string n; std::getline(list, n, ',');) names.push_back(n);
  return names;
}

int value(uint64_t seed, int origin, int i) {
  return static_cast<int>(mix(seed, static_cast<uint64_t>(origin), static_cast<uint64_t>(i)) %
                          1000003);
}

enum class Shape { regular, irregular, degenerate, random, empty };
const char* shape_name(Shape s) {
  static const char* n[] = {"regular", "irregular", "degenerate", "random", "empty"};
  return n[static_cast<int>(s)];
}

std::vector<int> counts_of(Shape s, int p, int base, uint64_t seed) {
  std::vector<int> c(static_cast<size_t>(p), 0);
  for (int i = 0; i < p; ++i) switch (s) {
      case Shape::regular: c[i] = base; break;
      case Shape::irregular: c[i] = base * i; break;
      case Shape::degenerate:
        c[i] = i == static_cast<int>(seed % static_cast<uint64_t>(p)) ? base * p : 0;
        break;
      case Shape::random:
        c[i] = mix(seed, 5, static_cast<uint64_t>(i)) % 3 == 0
                   ? 0
                   : static_cast<int>(mix(seed, 6, static_cast<uint64_t>(i)) %
                                      static_cast<uint64_t>(2 * base + 1));
        break;
      case Shape::empty: break;
    }
  return c;
}

// Packed in rank order, or in reverse rank order with a gap of 3 elements before each portion.
std::vector<int> displs_of(const std::vector<int>& counts, bool gaps, int* total) {
  const int p = static_cast<int>(counts.size());
  std::vector<int> d(static_cast<size_t>(p));
  int at = 0;
  for (int k = 0; k < p; ++k) {
    const int o = gaps ? p - 1 - k : k;
    if (gaps) at += 3;
    d[o] = at;
    at += counts[o];
  }
  *total = at + (gaps ? 3 : 0);
  return d;
}

struct Case {
  std::string algo;
  Shape shape;
  int base;
  bool gaps;
  int blocks;
  bool in_place;
  uint64_t seed;
  std::string describe() const {
    return algo + " " + shape_name(shape) + " base=" + std::to_string(base) +
           (gaps ? " gaps" : " packed") + " blocks=" + std::to_string(blocks) +
           (in_place ? " in-place" : "");
  }
};

void run(Checker& chk, const Case& c) {
  const int rank = chk.rank(), p = chk.size();
  const std::vector<int> counts = counts_of(c.shape, p, c.base, c.seed);
  int total = 0;
  const std::vector<int> displs = displs_of(counts, c.gaps, &total);
  std::vector<int> send(static_cast<size_t>(counts[rank]));
  for (int i = 0; i < counts[rank]; ++i) send[i] = value(c.seed, rank, i);
  const std::vector<int> send_before = send;
  std::vector<int> recv(static_cast<size_t>(total) + 1, kSentinel);
  if (c.in_place) std::copy(send.begin(), send.end(), recv.begin() + displs[rank]);

  papcoll_options opt;
  papcoll_options_init(&opt);
  opt.algorithm = c.algo.c_str();
  opt.blocks = c.blocks;
  const int rc = papcoll_allgatherv(c.in_place ? MPI_IN_PLACE : send.data(), counts[rank], MPI_INT,
                                    recv.data(), counts.data(), displs.data(), MPI_INT,
                                    MPI_COMM_WORLD, &opt);
  if (!chk.expect_success(rc, c.describe())) return;
  std::vector<int> want(recv.size(), kSentinel);
  for (int o = 0; o < p; ++o)
    for (int i = 0; i < counts[o]; ++i)
      want[static_cast<size_t>(displs[o] + i)] = value(c.seed, o, i);
  size_t bad = 0;
  while (bad < want.size() && want[bad] == recv[bad]) ++bad;
  chk.expect(bad == want.size(),
             c.describe() + ": recvbuf[" + std::to_string(bad) + "] = " +
                 (bad < want.size()
                      ? std::to_string(recv[bad]) + ", expected " + std::to_string(want[bad])
                      : ""));
  chk.expect(send == send_before, c.describe() + ": send buffer was modified");
}

// sendtype MPI_INT x 2c, recvtype "2 ints" x c: the same bytes, different datatypes.
void mixed_types(Checker& chk, const std::string& algo) {
  const int rank = chk.rank(), p = chk.size();
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  std::vector<int> counts(static_cast<size_t>(p)), displs(static_cast<size_t>(p));
  for (int i = 0; i < p; ++i) counts[i] = 1 + i % 3;
  std::partial_sum(counts.begin(), counts.end() - 1, displs.begin() + 1);
  const int total_pairs = displs.back() + counts.back();
  std::vector<int> send(2 * static_cast<size_t>(counts[rank]));
  for (size_t i = 0; i < send.size(); ++i) send[i] = value(4242, rank, static_cast<int>(i));
  std::vector<int> recv(2 * static_cast<size_t>(total_pairs), kSentinel);
  papcoll_options opt;
  papcoll_options_init(&opt);
  opt.algorithm = algo.c_str();
  const int rc = papcoll_allgatherv(send.data(), 2 * counts[rank], MPI_INT, recv.data(),
                                    counts.data(), displs.data(), pair, MPI_COMM_WORLD, &opt);
  MPI_Type_free(&pair);
  if (!chk.expect_success(rc, algo + " mixed types")) return;
  bool ok = true;
  for (int o = 0; o < p; ++o)
    for (int i = 0; i < 2 * counts[o]; ++i)
      ok = ok && recv[static_cast<size_t>(2 * displs[o] + i)] == value(4242, o, i);
  chk.expect(ok, algo + " mixed types: wrong data");
}

// recvtype: an int with a 4-byte hole after it (extent 8), so the executor packs and unpacks
// (the shared-memory window stores packed blocks) and must leave the holes alone.
void holes_kept(Checker& chk, const std::string& algo) {
  const int rank = chk.rank(), p = chk.size();
  MPI_Datatype padded;
  MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &padded);
  MPI_Type_commit(&padded);
  std::vector<int> counts(static_cast<size_t>(p)), displs(static_cast<size_t>(p));
  for (int i = 0; i < p; ++i) counts[i] = 700 + 3 * i;
  std::partial_sum(counts.begin(), counts.end() - 1, displs.begin() + 1);
  const int total = displs.back() + counts.back();
  std::vector<int> send(static_cast<size_t>(counts[rank]));
  for (int i = 0; i < counts[rank]; ++i) send[i] = value(99, rank, i);
  std::vector<int> recv(2 * static_cast<size_t>(total), kSentinel);
  papcoll_options opt;
  papcoll_options_init(&opt);
  opt.algorithm = algo.c_str();
  const int rc = papcoll_allgatherv(send.data(), counts[rank], MPI_INT, recv.data(), counts.data(),
                                    displs.data(), padded, MPI_COMM_WORLD, &opt);
  MPI_Type_free(&padded);
  if (!chk.expect_success(rc, algo + " padded recvtype")) return;
  bool ok = true;
  for (int o = 0; o < p; ++o)
    for (int i = 0; i < counts[o]; ++i) {
      const size_t at = 2 * static_cast<size_t>(displs[o] + i);
      ok = ok && recv[at] == value(99, o, i) && recv[at + 1] == kSentinel;
    }
  chk.expect(ok, algo + " padded recvtype: wrong data or a hole written");
}

// Back-to-back calls on a sub-communicator with one rank late by turns and sizes that grow (the
// shared-memory window is reallocated) and shrink, then the communicator is freed (its window
// with it).
void skewed_calls_on_subcomm(Checker& chk, const std::string& algo) {
  const int rank = chk.rank();
  MPI_Comm sub;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &sub);
  int r = 0, q = 1;
  MPI_Comm_rank(sub, &r);
  MPI_Comm_size(sub, &q);
  bool ok = true;
  for (int call = 0; call < 24; ++call) {
    const int base = call % 6 == 5 ? 50000 : 1 + 37 * call;
    std::vector<int> counts(static_cast<size_t>(q)), displs(static_cast<size_t>(q));
    for (int i = 0; i < q; ++i) counts[i] = (call + i) % 4 == 0 ? 0 : base + i;
    std::partial_sum(counts.begin(), counts.end() - 1, displs.begin() + 1);
    const int total = displs.back() + counts.back();
    std::vector<int> send(static_cast<size_t>(counts[r]));
    for (int i = 0; i < counts[r]; ++i) send[i] = value(1000 + call, r, i);
    std::vector<int> recv(static_cast<size_t>(total) + 1, kSentinel);
    if (r == call % q) usleep(2000);
    papcoll_options opt;
    papcoll_options_init(&opt);
    opt.algorithm = algo.c_str();
    const int rc = papcoll_allgatherv(send.data(), counts[r], MPI_INT, recv.data(), counts.data(),
                                      displs.data(), MPI_INT, sub, &opt);
    if (!chk.expect_success(rc, algo + " sub-communicator call " + std::to_string(call))) break;
    for (int o = 0; o < q; ++o)
      for (int i = 0; i < counts[o]; ++i)
        ok = ok && recv[static_cast<size_t>(displs[o] + i)] == value(1000 + call, o, i);
    ok = ok && recv.back() == kSentinel;
  }
  MPI_Comm_free(&sub);
  chk.expect(ok, algo + " sub-communicator: wrong data");
}

void errors(Checker& chk) {
  const int p = chk.size(), rank = chk.rank();
  std::vector<int> counts(static_cast<size_t>(p), 1), displs(static_cast<size_t>(p));
  std::iota(displs.begin(), displs.end(), 0);
  std::vector<int> recv(static_cast<size_t>(p));
  int x = 1;
  auto call = [&](const void* s, int sc, const int* rc, const int* d, void* r, const char* algo) {
    papcoll_options opt;
    papcoll_options_init(&opt);
    opt.algorithm = algo;
    return papcoll_allgatherv(s, sc, MPI_INT, r, rc, d, MPI_INT, MPI_COMM_WORLD, &opt);
  };
  chk.expect_code(call(&x, 1, nullptr, displs.data(), recv.data(), nullptr), PAPCOLL_ERR_ARG,
                  "NULL recvcounts");
  chk.expect_code(call(&x, 1, counts.data(), nullptr, recv.data(), nullptr), PAPCOLL_ERR_ARG,
                  "NULL displs");
  chk.expect_code(call(&x, -1, counts.data(), displs.data(), recv.data(), nullptr), PAPCOLL_ERR_ARG,
                  "negative sendcount");
  chk.expect_code(call(&x, 2, counts.data(), displs.data(), recv.data(), nullptr), PAPCOLL_ERR_ARG,
                  "sendcount differs from recvcounts[rank]");
  chk.expect_code(call(&x, 1, counts.data(), displs.data(), nullptr, nullptr), PAPCOLL_ERR_ARG,
                  "NULL recvbuf");
  chk.expect_code(call(&x, 1, counts.data(), displs.data(), recv.data(), "no-such"),
                  PAPCOLL_ERR_ALGORITHM, "unknown algorithm");
  std::vector<int> negative = counts;
  negative[p - 1] = -4;
  chk.expect_code(call(&x, rank == p - 1 ? -4 : 1, negative.data(), displs.data(), recv.data(),
                       nullptr),
                  PAPCOLL_ERR_ARG, "negative recvcount");
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  {
    Checker chk("test_allgatherv");
    uint64_t seed = 10;
    for (const std::string& algo : algorithms()) {
      for (Shape shape :
           {Shape::regular, Shape::irregular, Shape::degenerate, Shape::random, Shape::empty})
        for (int base : {1, 5, 333})
          for (bool gaps : {false, true})
            for (int blocks : {0, 1, 3, 40}) {
              ++seed;
              run(chk, {algo, shape, base, gaps, blocks, seed % 3 == 0, seed});
            }
      run(chk, {algo, Shape::irregular, 20011, true, 0, false, ++seed});  // large and odd
      run(chk, {algo, Shape::degenerate, 40009, false, 0, true, ++seed});
      mixed_types(chk, algo);
      holes_kept(chk, algo);
      skewed_calls_on_subcomm(chk, algo);
    }
    errors(chk);
    const int rc = chk.finish();
    MPI_Finalize();
    return rc;
  }
}
