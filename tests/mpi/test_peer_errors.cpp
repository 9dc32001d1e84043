// One rank's argument error on a call, told to every rank that needs to know (docs/errors.md),
// on a communicator's first call and on a later one. The reproducer of the issue comes first: at
// 4 ranks, rank 1 passes count -5 to papcoll_allreduce ("ring") on a communicator's first call
// (the others hung: no board yet), and after one good call (the others returned success with a
// sum that lacked rank 1's data).
//
// Then, for every collective with a refusal path and every argument error papcoll checks on one
// rank (a negative count, MPI_DATATYPE_NULL, MPI_OP_NULL, an unknown algorithm, a root out of
// range, NULL arrays and buffers, a wrong agreed arrival vector), with `auto`, `native` and
// schedules, the erring rank first and last: nobody hangs (mpirun's timeout), the erring rank
// returns its own code, every rank whose result holds its stand-in data returns
// PAPCOLL_ERR_PEER naming it (scatterv/gatherv trees: the root's refusal travels in its
// broadcast, every rank returns its code), every other rank PAPCOLL_SUCCESS; every buffer holds
// what docs/errors.md says, the erring rank's untouched; and the same call with valid arguments
// right after is exact on every rank.
#include <mpi.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "mpi_check.hpp"
#include "papcoll/papcoll.h"

using papcoll_test::Checker;

namespace {

constexpr int kN = 1200;
constexpr int kSentinel = -7;

int val(int rank, int i) { return 3 * rank + i % 101 + 1; }

int sum_without(int p, int i, int without) {
  int s = 0;
  for (int q = 0; q < p; ++q)
    if (q != without) s += val(q, i);
  return s;
}

// A communicator whose first papcoll call is the case's (`later`: after one good call).
struct FreshComm {
  MPI_Comm comm = MPI_COMM_NULL;
  FreshComm() { MPI_Comm_dup(MPI_COMM_WORLD, &comm); }
  ~FreshComm() { MPI_Comm_free(&comm); }
};

// What every rank expects of a faulty call.
struct Outcome {
  int erring = 0;
  int code = PAPCOLL_ERR_ARG;  // the erring rank's
  bool took_part = true;       // its message says it took part in the others' call (kind 3)
  bool agreed = false;         // every rank returns its code (a scatterv/gatherv root's refusal)
  std::vector<int> readers;    // get PAPCOLL_ERR_PEER
};

bool has(const char* text, const std::string& needle) {
  return std::strstr(text, needle.c_str()) != nullptr;
}

void check_codes(Checker& chk, int rc, const Outcome& o, const std::string& what) {
  const int r = chk.rank();
  const char* m = papcoll_last_error();
  const std::string e = "rank " + std::to_string(o.erring);
  bool reader = false;
  for (int q : o.readers) reader = reader || q == r;
  std::string want;
  bool ok = false;
  if (r == o.erring) {
    ok = rc == o.code && (!o.took_part || has(m, "took part in the other ranks'"));
    want = std::to_string(o.code) + (o.took_part ? " saying it took part" : "");
  } else if (o.agreed) {
    ok = rc == o.code && has(m, e);
    want = std::to_string(o.code) + " naming " + e;
  } else if (reader) {
    ok = rc == PAPCOLL_ERR_PEER && has(m, e + " (");
    want = "PAPCOLL_ERR_PEER naming " + e;
  } else {
    ok = rc == PAPCOLL_SUCCESS;
    want = "PAPCOLL_SUCCESS";
  }
  chk.expect(ok, what + ": rank " + std::to_string(r) + " returned " + std::to_string(rc) +
                     ", expected " + want + ": " + m);
}

papcoll_options with(const char* algo) {
  papcoll_options o;
  papcoll_options_init(&o);
  o.algorithm = algo;
  return o;
}

// Agreed arrival times on every rank: rank 0 late by 20 ms, so the arrival-aware rows have a
// pattern to act on.
std::vector<double> late_rank0(int p) {
  std::vector<double> a(static_cast<size_t>(p), 0.0);
  a[0] = 0.02;
  return a;
}

// ---------------------------------------------------------------------------------------------
// allreduce

enum class ArFault {
  count,
  datatype,
  op,
  algorithm,
  sendbuf_null,
  recvbuf_null,
  arrivals_count,
  arrivals_nan,
  arrivals_null
};
const char* name(ArFault f) {
  static const char* n[] = {"count -5",
                            "MPI_DATATYPE_NULL",
                            "MPI_OP_NULL",
                            "unknown algorithm",
                            "NULL sendbuf",
                            "NULL recvbuf",
                            "arrivals_count wrong",
                            "arrivals[1] NaN",
                            "NULL arrivals with arrivals_count"};
  return n[static_cast<int>(f)];
}

// "auto-bcast": `auto` with arrivals that are not agreed (rank 0's are broadcast).
papcoll_options with_arrivals(const char* algo, const std::vector<double>& arr) {
  const bool bcast = std::strcmp(algo, "auto-bcast") == 0;
  papcoll_options o = with(bcast ? "auto" : algo);
  o.arrivals = arr.data();
  o.arrivals_count = static_cast<int>(arr.size());
  o.arrivals_agreed = bcast ? 0 : 1;
  return o;
}

void good_allreduce(Checker& chk, MPI_Comm comm, const char* algo, const std::string& after) {
  const int p = chk.size();
  std::vector<int> x(kN), y(kN, kSentinel);
  for (int i = 0; i < kN; ++i) x[i] = val(chk.rank(), i);
  const std::vector<double> arr = late_rank0(p);
  const papcoll_options o = with_arrivals(algo, arr);
  const int rc = papcoll_allreduce(x.data(), y.data(), kN, MPI_INT, MPI_SUM, comm, &o);
  bool ok = rc == PAPCOLL_SUCCESS;
  for (int i = 0; i < kN && ok; ++i) ok = y[i] == sum_without(p, i, -1);
  chk.expect(ok, "a valid allreduce '" + std::string(algo) + "' after " + after + ": rc " +
                     std::to_string(rc) + " " + papcoll_last_error());
}

void allreduce_case(Checker& chk, const char* algo, ArFault f, int e, bool later) {
  const int p = chk.size(), rank = chk.rank();
  const std::string what = std::string("allreduce '") + algo + "', rank " + std::to_string(e) +
                           ": " + name(f) + (later ? " (a later call)" : " (the first call)");
  FreshComm fc;
  if (later) good_allreduce(chk, fc.comm, algo, "nothing");
  std::vector<int> x(kN), y(kN, kSentinel);
  for (int i = 0; i < kN; ++i) x[i] = val(rank, i);
  std::vector<double> arr = late_rank0(p);
  papcoll_options o = with_arrivals(algo, arr);
  int count = kN;
  MPI_Datatype type = MPI_INT;
  MPI_Op op = MPI_SUM;
  const void* send = x.data();
  void* recv = y.data();
  Outcome out;
  out.erring = e;
  for (int q = 0; q < p; ++q)
    if (q != e) out.readers.push_back(q);
  switch (f) {
    case ArFault::algorithm: out.code = PAPCOLL_ERR_ALGORITHM; break;
    case ArFault::arrivals_count:
    case ArFault::arrivals_nan:
    case ArFault::arrivals_null: out.code = PAPCOLL_ERR_ARRIVALS; break;
    case ArFault::sendbuf_null:
    case ArFault::recvbuf_null: out.took_part = false; break;
    default: break;
  }
  if (f == ArFault::recvbuf_null) out.readers.clear();  // it sends its own data
  if (rank == e) {
    switch (f) {
      case ArFault::count: count = -5; break;
      case ArFault::datatype: type = MPI_DATATYPE_NULL; break;
      case ArFault::op: op = MPI_OP_NULL; break;
      case ArFault::algorithm: o.algorithm = "no-such-algorithm"; break;
      case ArFault::sendbuf_null: send = nullptr; break;
      case ArFault::recvbuf_null: recv = nullptr; break;
      case ArFault::arrivals_count: o.arrivals_count = p + 1; break;
      case ArFault::arrivals_nan: arr[1 % p] = std::numeric_limits<double>::quiet_NaN(); break;
      case ArFault::arrivals_null: o.arrivals = nullptr; break;
    }
  }
  check_codes(chk, papcoll_allreduce(send, recv, count, type, op, fc.comm, &o), out, what);
  bool ok = true;
  const bool full = f == ArFault::recvbuf_null;
  for (int i = 0; i < kN && ok; ++i)
    ok = rank == e ? (y[i] == kSentinel && x[i] == val(rank, i))
                   : y[i] == sum_without(p, i, full ? -1 : e);
  chk.expect(ok, what + ": buffers (the erring rank counted as the op's identity, its own "
                        "untouched)");
  good_allreduce(chk, fc.comm, algo, what);
}

// ---------------------------------------------------------------------------------------------
// reduce

enum class RdFault { count, op, root, sendbuf_null };
const char* name(RdFault f) {
  static const char* n[] = {"count -5", "MPI_OP_NULL", "root out of range", "NULL sendbuf"};
  return n[static_cast<int>(f)];
}

void good_reduce(Checker& chk, MPI_Comm comm, const char* algo, int root,
                 const std::string& after) {
  const int p = chk.size();
  std::vector<int> x(kN), y(kN, kSentinel);
  for (int i = 0; i < kN; ++i) x[i] = val(chk.rank(), i);
  const papcoll_options o = with(algo);
  const int rc = papcoll_reduce(x.data(), y.data(), kN, MPI_INT, MPI_SUM, root, comm, &o);
  bool ok = rc == PAPCOLL_SUCCESS;
  for (int i = 0; i < kN && ok && chk.rank() == root; ++i) ok = y[i] == sum_without(p, i, -1);
  chk.expect(ok, "a valid reduce '" + std::string(algo) + "' after " + after + ": rc " +
                     std::to_string(rc) + " " + papcoll_last_error());
}

void reduce_case(Checker& chk, const char* algo, RdFault f, int e, bool later) {
  const int p = chk.size(), rank = chk.rank(), root = 1 % p;
  const std::string what = std::string("reduce '") + algo + "' root " + std::to_string(root) +
                           ", rank " + std::to_string(e) + ": " + name(f) +
                           (later ? " (a later call)" : " (the first call)");
  FreshComm fc;
  if (later) good_reduce(chk, fc.comm, algo, root, "nothing");
  std::vector<int> x(kN), y(kN, kSentinel);
  for (int i = 0; i < kN; ++i) x[i] = val(rank, i);
  int count = kN, r = root;
  MPI_Op op = MPI_SUM;
  const void* send = x.data();
  Outcome out;
  out.erring = e;
  out.took_part = f != RdFault::sendbuf_null;
  if (e != root) out.readers.push_back(root);
  if (rank == e) {
    if (f == RdFault::count) count = -5;
    if (f == RdFault::op) op = MPI_OP_NULL;
    if (f == RdFault::root) r = p + 3;
    if (f == RdFault::sendbuf_null) send = nullptr;
  }
  const papcoll_options o = with(algo);
  check_codes(chk, papcoll_reduce(send, y.data(), count, MPI_INT, op, r, fc.comm, &o), out, what);
  bool ok = true;
  for (int i = 0; i < kN && ok; ++i) {
    if (rank == e)
      ok = y[i] == kSentinel && x[i] == val(rank, i);
    else if (rank == root)
      ok = y[i] == sum_without(p, i, e);
  }
  chk.expect(ok, what + ": buffers");
  good_reduce(chk, fc.comm, algo, root, what);
}

// ---------------------------------------------------------------------------------------------
// bcast

enum class BcFault { count, datatype, root, buffer_null };
const char* name(BcFault f) {
  static const char* n[] = {"count -5", "MPI_DATATYPE_NULL", "root out of range", "NULL buffer"};
  return n[static_cast<int>(f)];
}

void good_bcast(Checker& chk, MPI_Comm comm, const char* algo, int root, const std::string& after) {
  std::vector<int> b(kN, kSentinel);
  if (chk.rank() == root)
    for (int i = 0; i < kN; ++i) b[i] = val(root, i);
  const papcoll_options o = with(algo);
  const int rc = papcoll_bcast(b.data(), kN, MPI_INT, root, comm, &o);
  bool ok = rc == PAPCOLL_SUCCESS;
  for (int i = 0; i < kN && ok; ++i) ok = b[i] == val(root, i);
  chk.expect(ok, "a valid bcast '" + std::string(algo) + "' after " + after + ": rc " +
                     std::to_string(rc) + " " + papcoll_last_error());
}

void bcast_case(Checker& chk, const char* algo, BcFault f, int e, bool later) {
  const int p = chk.size(), rank = chk.rank(), root = 1 % p;
  const std::string what = std::string("bcast '") + algo + "' root " + std::to_string(root) +
                           ", rank " + std::to_string(e) + ": " + name(f) +
                           (later ? " (a later call)" : " (the first call)");
  FreshComm fc;
  if (later) good_bcast(chk, fc.comm, algo, root, "nothing");
  std::vector<int> b(kN, kSentinel);
  if (rank == root)
    for (int i = 0; i < kN; ++i) b[i] = val(root, i);
  const std::vector<int> before = b;
  int count = kN, r = root;
  MPI_Datatype type = MPI_INT;
  void* buf = b.data();
  Outcome out;
  out.erring = e;
  out.took_part = f != BcFault::buffer_null;
  if (e == root)  // the others receive its stand-in zeros
    for (int q = 0; q < p; ++q)
      if (q != e) out.readers.push_back(q);
  if (rank == e) {
    if (f == BcFault::count) count = -5;
    if (f == BcFault::datatype) type = MPI_DATATYPE_NULL;
    if (f == BcFault::root) r = -1;
    if (f == BcFault::buffer_null) buf = nullptr;
  }
  const papcoll_options o = with(algo);
  check_codes(chk, papcoll_bcast(buf, count, type, r, fc.comm, &o), out, what);
  bool ok = true;
  for (int i = 0; i < kN && ok; ++i)
    ok = rank == e ? b[i] == before[i] : b[i] == (e == root ? 0 : val(root, i));
  chk.expect(ok, what + ": buffers (a root that erred sends zeros)");
  good_bcast(chk, fc.comm, algo, root, what);
}

// ---------------------------------------------------------------------------------------------
// allgatherv: portion o has 200 + 37 o ints at displacement 400 o (gaps between them).

int portion(int o) { return 200 + 37 * o; }

enum class AgFault {
  recvcounts_null,
  recvcount_negative,
  recvtype,
  algorithm,
  sendbuf_null,
  recvbuf_null
};
const char* name(AgFault f) {
  static const char* n[] = {"NULL recvcounts",   "recvcounts[0] negative", "recvtype NULL",
                            "unknown algorithm", "NULL sendbuf",           "NULL recvbuf"};
  return n[static_cast<int>(f)];
}

struct AgArgs {
  std::vector<int> counts, displs, send, recv;
  explicit AgArgs(int p, int rank) : counts(p), displs(p), send(portion(rank)) {
    int span = 0;
    for (int o = 0; o < p; ++o) {
      counts[o] = portion(o);
      displs[o] = 400 * o;
      span = displs[o] + counts[o];
    }
    recv.assign(static_cast<size_t>(span), kSentinel);
    for (int i = 0; i < portion(rank); ++i) send[i] = val(rank, i);
  }
};

void good_allgatherv(Checker& chk, MPI_Comm comm, const char* algo, const std::string& after) {
  const int p = chk.size();
  AgArgs a(p, chk.rank());
  const papcoll_options o = with(algo);
  const int rc = papcoll_allgatherv(a.send.data(), portion(chk.rank()), MPI_INT, a.recv.data(),
                                    a.counts.data(), a.displs.data(), MPI_INT, comm, &o);
  bool ok = rc == PAPCOLL_SUCCESS;
  for (int q = 0; q < p && ok; ++q)
    for (int i = 0; i < portion(q) && ok; ++i) ok = a.recv[a.displs[q] + i] == val(q, i);
  chk.expect(ok, "a valid allgatherv '" + std::string(algo) + "' after " + after + ": rc " +
                     std::to_string(rc) + " " + papcoll_last_error());
}

void allgatherv_case(Checker& chk, const char* algo, AgFault f, int e, bool later) {
  const int p = chk.size(), rank = chk.rank();
  const std::string what = std::string("allgatherv '") + algo + "', rank " + std::to_string(e) +
                           ": " + name(f) + (later ? " (a later call)" : " (the first call)");
  FreshComm fc;
  if (later) good_allgatherv(chk, fc.comm, algo, "nothing");
  AgArgs a(p, rank);
  const void* send = a.send.data();
  void* recv = a.recv.data();
  const int* counts = a.counts.data();
  MPI_Datatype rtype = MPI_INT;
  papcoll_options o = with(algo);
  std::vector<int> bad_counts = a.counts;
  bad_counts[0] = -4;
  Outcome out;
  out.erring = e;
  out.code = f == AgFault::algorithm ? PAPCOLL_ERR_ALGORITHM : PAPCOLL_ERR_ARG;
  out.took_part = f != AgFault::sendbuf_null && f != AgFault::recvbuf_null;
  if (f != AgFault::recvbuf_null)  // with a NULL recvbuf it still sends its own portion
    for (int q = 0; q < p; ++q)
      if (q != e) out.readers.push_back(q);
  if (rank == e) {
    switch (f) {
      case AgFault::recvcounts_null: counts = nullptr; break;
      case AgFault::recvcount_negative: counts = bad_counts.data(); break;
      case AgFault::recvtype: rtype = MPI_DATATYPE_NULL; break;
      case AgFault::algorithm: o.algorithm = "no-such-algorithm"; break;
      case AgFault::sendbuf_null: send = nullptr; break;
      case AgFault::recvbuf_null: recv = nullptr; break;
    }
  }
  check_codes(chk,
              papcoll_allgatherv(send, portion(rank), MPI_INT, recv, counts, a.displs.data(), rtype,
                                 fc.comm, &o),
              out, what);
  bool ok = true;
  const bool own_portion_sent = f == AgFault::recvbuf_null;
  for (int q = 0; q < p && ok; ++q)
    for (int i = 0; i < portion(q) && ok; ++i) {
      const int got = a.recv[a.displs[q] + i];
      ok = rank == e ? got == kSentinel : got == (q == e && !own_portion_sent ? 0 : val(q, i));
    }
  chk.expect(ok, what + ": buffers (the erring rank's portion zeros elsewhere, its own untouched)");
  good_allgatherv(chk, fc.comm, algo, what);
}

// ---------------------------------------------------------------------------------------------
// scatterv and gatherv: portion q has 150 + 11 q ints at displacement 200 q at the root.

int sg_portion(int q) { return 150 + 11 * q; }

enum class SgFault { root, algorithm, own_buffer_null };
const char* name(SgFault f) {
  static const char* n[] = {"root out of range", "unknown algorithm", "NULL own buffer"};
  return n[static_cast<int>(f)];
}

struct SgArgs {
  std::vector<int> counts, displs, all, own;
  SgArgs(int p, int rank, int root) : counts(p), displs(p) {
    int span = 0;
    for (int q = 0; q < p; ++q) {
      counts[q] = sg_portion(q);
      displs[q] = 200 * q;
      span = displs[q] + counts[q];
    }
    all.assign(static_cast<size_t>(span), kSentinel);
    own.assign(static_cast<size_t>(sg_portion(rank)), kSentinel);
    (void)root;
  }
};

bool is_tree(const char* algo) { return std::strcmp(algo, "native") != 0; }

int run_scatterv(const SgArgs& a, const void* all, void* own, int rank, int root, MPI_Comm comm,
                 const papcoll_options* o) {
  return papcoll_scatterv(all, a.counts.data(), a.displs.data(), MPI_INT, own, sg_portion(rank),
                          MPI_INT, root, comm, o);
}

void good_scatterv(Checker& chk, MPI_Comm comm, const char* algo, int root,
                   const std::string& after) {
  const int p = chk.size(), rank = chk.rank();
  SgArgs a(p, rank, root);
  if (rank == root)
    for (int q = 0; q < p; ++q)
      for (int i = 0; i < sg_portion(q); ++i) a.all[a.displs[q] + i] = val(q, i);
  const papcoll_options o = with(algo);
  const int rc = run_scatterv(a, a.all.data(), a.own.data(), rank, root, comm, &o);
  bool ok = rc == PAPCOLL_SUCCESS;
  for (int i = 0; i < sg_portion(rank) && ok; ++i) ok = a.own[i] == val(rank, i);
  chk.expect(ok, "a valid scatterv '" + std::string(algo) + "' after " + after + ": rc " +
                     std::to_string(rc) + " " + papcoll_last_error());
}

void scatterv_case(Checker& chk, const char* algo, SgFault f, int e, bool later) {
  const int p = chk.size(), rank = chk.rank(), root = 1 % p;
  const std::string what = std::string("scatterv '") + algo + "' root " + std::to_string(root) +
                           ", rank " + std::to_string(e) + ": " + name(f) +
                           (later ? " (a later call)" : " (the first call)");
  FreshComm fc;
  if (later) good_scatterv(chk, fc.comm, algo, root, "nothing");
  SgArgs a(p, rank, root);
  if (rank == root)
    for (int q = 0; q < p; ++q)
      for (int i = 0; i < sg_portion(q); ++i) a.all[a.displs[q] + i] = val(q, i);
  const std::vector<int> own_before = a.own;
  int r = root;
  const void* all = a.all.data();
  void* own = a.own.data();
  papcoll_options o = with(algo);
  Outcome out;
  out.erring = e;
  out.code = f == SgFault::algorithm ? PAPCOLL_ERR_ALGORITHM : PAPCOLL_ERR_ARG;
  out.took_part = f != SgFault::own_buffer_null;
  const bool root_errs = e == root;
  if (root_errs && is_tree(algo)) {
    out.agreed = true;  // its refusal travels in its broadcast
    out.took_part = false;
  } else if (root_errs && f != SgFault::own_buffer_null) {
    for (int q = 0; q < p; ++q)
      if (q != e) out.readers.push_back(q);  // they receive zeros
  }
  if (rank == e) {
    if (f == SgFault::root) r = rank == root ? -1 : p + 1;
    if (f == SgFault::algorithm) o.algorithm = "no-such-algorithm";
    if (f == SgFault::own_buffer_null) own = nullptr;
  }
  check_codes(chk, run_scatterv(a, all, own, rank, r, fc.comm, &o), out, what);
  bool ok = true;
  const bool zeros = root_errs && !out.agreed && f != SgFault::own_buffer_null;
  for (int i = 0; i < sg_portion(rank) && ok; ++i) {
    if (rank == e || out.agreed)
      ok = a.own[i] == own_before[i];
    else
      ok = a.own[i] == (zeros ? 0 : val(rank, i));
  }
  chk.expect(ok, what + ": buffers");
  good_scatterv(chk, fc.comm, algo, root, what);
}

int run_gatherv(const SgArgs& a, const void* own, void* all, int rank, int root, MPI_Comm comm,
                const papcoll_options* o) {
  return papcoll_gatherv(own, sg_portion(rank), MPI_INT, all, a.counts.data(), a.displs.data(),
                         MPI_INT, root, comm, o);
}

void good_gatherv(Checker& chk, MPI_Comm comm, const char* algo, int root,
                  const std::string& after) {
  const int p = chk.size(), rank = chk.rank();
  SgArgs a(p, rank, root);
  for (int i = 0; i < sg_portion(rank); ++i) a.own[i] = val(rank, i);
  const papcoll_options o = with(algo);
  const int rc = run_gatherv(a, a.own.data(), a.all.data(), rank, root, comm, &o);
  bool ok = rc == PAPCOLL_SUCCESS;
  for (int q = 0; q < p && ok && rank == root; ++q)
    for (int i = 0; i < sg_portion(q) && ok; ++i) ok = a.all[a.displs[q] + i] == val(q, i);
  chk.expect(ok, "a valid gatherv '" + std::string(algo) + "' after " + after + ": rc " +
                     std::to_string(rc) + " " + papcoll_last_error());
}

void gatherv_case(Checker& chk, const char* algo, SgFault f, int e, bool later) {
  const int p = chk.size(), rank = chk.rank(), root = 1 % p;
  const std::string what = std::string("gatherv '") + algo + "' root " + std::to_string(root) +
                           ", rank " + std::to_string(e) + ": " + name(f) +
                           (later ? " (a later call)" : " (the first call)");
  FreshComm fc;
  if (later) good_gatherv(chk, fc.comm, algo, root, "nothing");
  SgArgs a(p, rank, root);
  for (int i = 0; i < sg_portion(rank); ++i) a.own[i] = val(rank, i);
  int r = root;
  const void* own = a.own.data();
  void* all = a.all.data();
  papcoll_options o = with(algo);
  Outcome out;
  out.erring = e;
  out.code = f == SgFault::algorithm ? PAPCOLL_ERR_ALGORITHM : PAPCOLL_ERR_ARG;
  out.took_part = f != SgFault::own_buffer_null;
  const bool root_errs = e == root;
  if (root_errs && is_tree(algo)) {
    out.agreed = true;  // its refusal travels in its broadcast
    out.took_part = false;
  }
  if (!root_errs) out.readers.push_back(root);  // its portion arrives as zeros
  if (rank == e) {
    if (f == SgFault::root) r = rank == root ? -1 : p + 1;
    if (f == SgFault::algorithm) o.algorithm = "no-such-algorithm";
    if (f == SgFault::own_buffer_null) own = nullptr;
  }
  check_codes(chk, run_gatherv(a, own, all, rank, r, fc.comm, &o), out, what);
  bool ok = true;
  if (rank == root && rank != e && !out.agreed)
    for (int q = 0; q < p && ok; ++q)
      for (int i = 0; i < sg_portion(q) && ok; ++i)
        ok = a.all[a.displs[q] + i] == (q == e ? 0 : val(q, i));
  // A root whose own send buffer is NULL still receives the others' portions ("native"), its own
  // being zeros; any other erring rank's buffers, and every buffer of an agreed refusal, are
  // untouched.
  if (rank == e && rank == root && !out.agreed && f == SgFault::own_buffer_null)
    for (int q = 0; q < p && ok; ++q)
      for (int i = 0; i < sg_portion(q) && ok; ++i)
        ok = a.all[a.displs[q] + i] == (q == e ? 0 : val(q, i));
  else if (rank == e || out.agreed)
    for (size_t i = 0; i < a.all.size() && ok; ++i) ok = a.all[i] == kSentinel;
  chk.expect(ok, what + ": buffers");
  good_gatherv(chk, fc.comm, algo, root, what);
}

// ---------------------------------------------------------------------------------------------

// The issue's table: 4 ranks, rank 1 passes count -5 to a "ring" all-reduce.
void issue_table(Checker& chk) {
  const int e = 1 % chk.size();
  allreduce_case(chk, "ring", ArFault::count, e, false);
  allreduce_case(chk, "ring", ArFault::count, e, true);
}

template <typename Fault, typename Case>
void every(Checker& chk, std::initializer_list<const char*> algos,
           std::initializer_list<Fault> faults, Case run) {
  const int p = chk.size();
  for (const char* algo : algos)
    for (Fault f : faults)
      for (int e : {0, p - 1})
        for (bool later : {false, true}) run(chk, algo, f, e, later);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int status = 0;
  {
    Checker chk("test_peer_errors");
    if (chk.size() >= 2) {
      issue_table(chk);
      every(chk, {"auto", "native", "ring", "prr"},
            {ArFault::count, ArFault::datatype, ArFault::op, ArFault::algorithm,
             ArFault::sendbuf_null, ArFault::recvbuf_null},
            allreduce_case);
      every(chk, {"auto", "prr"},
            {ArFault::arrivals_count, ArFault::arrivals_nan, ArFault::arrivals_null},
            allreduce_case);
      // Arrivals that are not agreed: the refusing rank takes part in rank 0's broadcast of them
      // (with zeros when it is rank 0 and has none).
      every(chk, {"auto-bcast"}, {ArFault::count, ArFault::algorithm, ArFault::arrivals_null},
            allreduce_case);
      every(chk, {"auto", "native", "binomial"},
            {RdFault::count, RdFault::op, RdFault::root, RdFault::sendbuf_null}, reduce_case);
      every(chk, {"auto", "native", "binomial"},
            {BcFault::count, BcFault::datatype, BcFault::root, BcFault::buffer_null}, bcast_case);
      every(chk, {"auto", "native", "ring"},
            {AgFault::recvcounts_null, AgFault::recvcount_negative, AgFault::recvtype,
             AgFault::algorithm, AgFault::sendbuf_null, AgFault::recvbuf_null},
            allgatherv_case);
      // Rank 1 is the root of scatterv and gatherv: the erring rank is it, or rank 0.
      for (const char* algo : {"auto", "native", "binomial"})
        for (SgFault f : {SgFault::root, SgFault::algorithm, SgFault::own_buffer_null})
          for (int e : {0, 1})
            for (bool later : {false, true}) {
              scatterv_case(chk, algo, f, e, later);
              gatherv_case(chk, algo, f, e, later);
            }
    }
    status = chk.finish();
  }
  MPI_Finalize();
  return status;
}
