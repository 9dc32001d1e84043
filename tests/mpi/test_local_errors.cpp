// One rank errs in its own arguments while the others call correctly (docs/errors.md): a NULL
// buffer, aliased send and receive buffers (not MPI_IN_PLACE), MPI_IN_PLACE off the root. The
// erring rank still knows the call's message pattern, so it takes part with stand-in data and
// returns PAPCOLL_ERR_ARG; the other ranks complete with exact results (the erring rank's
// readable send data, else the op's identity, else zeros): PAPCOLL_SUCCESS where the erring rank
// still sent its own data, else (its data missing from their result) PAPCOLL_ERR_PEER naming it;
// nobody hangs, and a valid call on every rank afterwards is exact. Also: counts that differ
// between ranks name MPI_ERR_TRUNCATE instead of MPI_ERR_IN_STATUS.
#include <mpi.h>

#include <cstring>
#include <string>
#include <vector>

#include "mpi_check.hpp"
#include "papcoll/papcoll.h"

using papcoll_test::Checker;

namespace {

constexpr int kN = 5000;  // elements per rank: several messages' worth for the schedules

int val(int rank, int i) { return 7 * rank + i % 1000; }

papcoll_options with(const char* algo) {
  papcoll_options o;
  papcoll_options_init(&o);
  o.algorithm = algo;
  return o;
}

// Whose result lacks the erring rank's data: they return PAPCOLL_ERR_PEER naming it.
enum class Readers { none, root, all };

// Every rank's code: the erring rank PAPCOLL_ERR_ARG, the readers of its missing data
// PAPCOLL_ERR_PEER naming it, the others PAPCOLL_SUCCESS.
void codes(Checker& chk, int rc, int erring, const std::string& what,
           Readers readers = Readers::none, int root = 0) {
  const bool reader = chk.rank() != erring &&
                      (readers == Readers::all || (readers == Readers::root && chk.rank() == root));
  if (chk.rank() == erring)
    chk.expect_code(rc, PAPCOLL_ERR_ARG, what + " (erring rank)");
  else if (reader)
    chk.expect(rc == PAPCOLL_ERR_PEER &&
                   std::strstr(papcoll_last_error(),
                               ("rank " + std::to_string(erring) + " (").c_str()) != nullptr,
               what + " (a rank whose result lacks its data): returned " + std::to_string(rc) +
                   ", expected PAPCOLL_ERR_PEER naming rank " + std::to_string(erring) + ": " +
                   papcoll_last_error());
  else
    chk.expect_success(rc, what + " (other rank)");
}

// A valid allreduce on every rank: nobody is out of step.
void in_step(Checker& chk, const std::string& after) {
  std::vector<int> x(kN), y(kN, -1);
  for (int i = 0; i < kN; ++i) x[i] = val(chk.rank(), i);
  const papcoll_options o = with("ring");
  const int rc = papcoll_allreduce(x.data(), y.data(), kN, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &o);
  bool ok = rc == PAPCOLL_SUCCESS;
  for (int i = 0; i < kN && ok; ++i) {
    int want = 0;
    for (int q = 0; q < chk.size(); ++q) want += val(q, i);
    ok = y[i] == want;
  }
  chk.expect(ok, "valid allreduce after " + after + ": rc " + std::to_string(rc));
}

int sum_of(int p, int i, int without) {
  int s = 0;
  for (int q = 0; q < p; ++q)
    if (q != without) s += val(q, i);
  return s;
}

enum class Fault { recvbuf_null, sendbuf_null, aliased };
const char* fault_name(Fault f) {
  return f == Fault::recvbuf_null   ? "NULL recvbuf"
         : f == Fault::sendbuf_null ? "NULL sendbuf"
                                    : "aliased buffers";
}

void allreduce_case(Checker& chk, const char* algo, Fault f) {
  const int p = chk.size(), rank = chk.rank(), e = p - 1;
  std::vector<int> x(kN), y(kN, -1);
  for (int i = 0; i < kN; ++i) x[i] = val(rank, i);
  const void* send = x.data();
  void* recv = y.data();
  if (rank == e) {
    if (f == Fault::recvbuf_null) recv = nullptr;
    if (f == Fault::sendbuf_null) send = nullptr;
    if (f == Fault::aliased) recv = x.data();
  }
  const papcoll_options o = with(algo);
  const std::string what = std::string("allreduce ") + algo + " " + fault_name(f);
  codes(chk, papcoll_allreduce(send, recv, kN, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &o), e, what,
        f == Fault::sendbuf_null ? Readers::all : Readers::none);
  bool ok = true;
  if (rank != e) {
    for (int i = 0; i < kN && ok; ++i) ok = y[i] == sum_of(p, i, f == Fault::sendbuf_null ? e : -1);
  } else {
    for (int i = 0; i < kN && ok; ++i)
      ok = x[i] == val(rank, i) && (f == Fault::recvbuf_null || f == Fault::aliased || y[i] == -1);
  }
  chk.expect(ok, what + ": results (the erring rank's data counted unless unreadable; its own "
                        "buffers untouched)");
  in_step(chk, what);
}

void reduce_case(Checker& chk, const char* algo, int which) {
  const int p = chk.size(), rank = chk.rank(), root = 0, e = which == 0 ? root : p - 1;
  std::vector<int> x(kN), y(kN, -1);
  for (int i = 0; i < kN; ++i) x[i] = val(rank, i);
  const void* send = x.data();
  void* recv = y.data();
  std::string fault;
  bool counted = true;
  if (rank == e) {
    switch (which) {
      case 0:
        recv = nullptr;
        fault = "NULL recvbuf at the root";
        break;
      case 1:
        send = nullptr;
        fault = "NULL sendbuf off the root";
        counted = false;
        break;
      case 2:
        send = MPI_IN_PLACE;
        fault = "MPI_IN_PLACE off the root";
        counted = false;
        break;
    }
  }
  MPI_Bcast(&counted, 1, MPI_C_BOOL, e, MPI_COMM_WORLD);
  const char* names[] = {"NULL recvbuf at the root", "NULL sendbuf off the root",
                         "MPI_IN_PLACE off the root"};
  const papcoll_options o = with(algo);
  const std::string what = std::string("reduce ") + algo + " " + names[which];
  codes(chk, papcoll_reduce(send, recv, kN, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, &o), e, what,
        counted ? Readers::none : Readers::root, root);
  if (rank == root && rank != e) {
    bool ok = true;
    for (int i = 0; i < kN && ok; ++i) ok = y[i] == sum_of(p, i, counted ? -1 : e);
    chk.expect(ok, what + ": the root's result");
  } else {
    chk.expect(true, what);
  }
  in_step(chk, what);
}

void bcast_case(Checker& chk, const char* algo, bool root_errs) {
  const int p = chk.size(), rank = chk.rank(), root = 1 % p, e = root_errs ? root : 0;
  if (!root_errs && e == root) return;
  std::vector<int> b(kN, rank == root ? 3 : -1);
  const papcoll_options o = with(algo);
  const std::string what = std::string("bcast ") + algo +
                           (root_errs ? " NULL buffer at the root" : " NULL buffer off the root");
  codes(chk, papcoll_bcast(rank == e ? nullptr : b.data(), kN, MPI_INT, root, MPI_COMM_WORLD, &o),
        e, what, root_errs ? Readers::all : Readers::none);
  bool ok = true;
  // The root's stand-in is zeros: the others receive them (docs/errors.md).
  if (rank != e)
    for (int i = 0; i < kN && ok; ++i) ok = b[i] == (root_errs ? 0 : 3);
  chk.expect(ok, what + ": results");
  in_step(chk, what);
}

void allgatherv_case(Checker& chk, const char* algo, Fault f) {
  const int p = chk.size(), rank = chk.rank(), e = p - 1;
  std::vector<int> counts(static_cast<size_t>(p), kN / 4), displs(static_cast<size_t>(p));
  for (int o = 0; o < p; ++o) displs[o] = o * (kN / 4);
  std::vector<int> mine(kN / 4), all(static_cast<size_t>(p) * (kN / 4), -1);
  for (int i = 0; i < kN / 4; ++i) mine[i] = val(rank, i);
  const void* send = mine.data();
  void* recv = all.data();
  if (rank == e) {
    if (f == Fault::recvbuf_null) recv = nullptr;
    if (f == Fault::sendbuf_null) send = nullptr;
    if (f == Fault::aliased) send = all.data() + 3;
  }
  const papcoll_options o = with(algo);
  const std::string what = std::string("allgatherv ") + algo + " " + fault_name(f);
  codes(chk,
        papcoll_allgatherv(send, kN / 4, MPI_INT, recv, counts.data(), displs.data(), MPI_INT,
                           MPI_COMM_WORLD, &o),
        e, what, f == Fault::sendbuf_null ? Readers::all : Readers::none);
  bool ok = true;
  if (rank != e)
    for (int q = 0; q < p && ok; ++q)
      for (int i = 0; i < kN / 4 && ok; ++i)
        ok = all[static_cast<size_t>(q) * (kN / 4) + i] ==
             (q == e && f != Fault::recvbuf_null ? (f == Fault::sendbuf_null ? 0 : -1) : val(q, i));
  else
    for (size_t i = 0; i < all.size() && ok; ++i) ok = all[i] == -1;  // untouched
  chk.expect(ok, what + ": results");
  in_step(chk, what);
}

void scatterv_native_case(Checker& chk) {
  const int p = chk.size(), rank = chk.rank(), root = 0, e = p - 1;
  if (e == root) return;
  std::vector<int> counts(static_cast<size_t>(p), 100), displs(static_cast<size_t>(p));
  std::vector<int> all(static_cast<size_t>(p) * 100), mine(100, -1);
  for (int o = 0; o < p; ++o) displs[o] = 100 * o;
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
  const papcoll_options o = with("native");
  codes(chk,
        papcoll_scatterv(all.data(), counts.data(), displs.data(), MPI_INT,
                         rank == e ? nullptr : mine.data(), 100, MPI_INT, root, MPI_COMM_WORLD, &o),
        e, "scatterv native NULL recvbuf");
  bool ok = true;
  if (rank != e)
    for (int i = 0; i < 100 && ok; ++i) ok = mine[i] == 100 * rank + i;
  chk.expect(ok, "scatterv native NULL recvbuf: results");
  in_step(chk, "scatterv native NULL recvbuf");
}

// Ranks 0 and 1 broadcast with different counts: the receive is too small.
void truncation(Checker& chk) {
  MPI_Comm pair;
  MPI_Comm_split(MPI_COMM_WORLD, chk.rank() < 2 ? 0 : MPI_UNDEFINED, chk.rank(), &pair);
  if (pair == MPI_COMM_NULL) {
    chk.expect(true, "truncation (not in the pair)");
    return;
  }
  std::vector<int> b(100, 1);
  const papcoll_options o = with("binomial");
  const int rc = papcoll_bcast(b.data(), chk.rank() == 0 ? 100 : 50, MPI_INT, 0, pair, &o);
  if (chk.rank() == 1)
    chk.expect(rc == PAPCOLL_ERR_MPI && std::strstr(papcoll_last_error(), "MPI_ERR_TRUNCATE") &&
                   std::strstr(papcoll_last_error(), "counts differ"),
               std::string("truncated receive names MPI_ERR_TRUNCATE: ") + papcoll_last_error());
  else
    chk.expect(true, "truncation (root)");
  MPI_Comm_free(&pair);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int status = 0;
  {
    Checker chk("test_local_errors");
    if (chk.size() >= 2) {
      for (const char* algo : {"auto", "native", "ring", "rabenseifner"})
        for (Fault f : {Fault::recvbuf_null, Fault::sendbuf_null, Fault::aliased})
          allreduce_case(chk, algo, f);
      for (const char* algo : {"auto", "native", "binomial", "ring"})
        for (int which : {0, 1, 2}) reduce_case(chk, algo, which);
      for (const char* algo : {"auto", "native", "circulant", "scatter-allgather"})
        for (bool root_errs : {false, true}) bcast_case(chk, algo, root_errs);
      for (const char* algo : {"auto", "native", "circulant", "ring"})
        for (Fault f : {Fault::recvbuf_null, Fault::sendbuf_null, Fault::aliased})
          allgatherv_case(chk, algo, f);
      scatterv_native_case(chk);
      truncation(chk);
    }
    status = chk.finish();
  }
  MPI_Finalize();
  return status;
}
