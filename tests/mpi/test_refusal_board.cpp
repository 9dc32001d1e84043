// The refusals a rank cannot avoid alone (docs/errors.md, kind 3): one rank's count is negative,
// its datatype MPI_DATATYPE_NULL, its op MPI_OP_NULL, its algorithm unknown, its options bad, its
// root out of range, while every other rank calls correctly, after a run of valid calls (the
// first call of a communicator: test_peer_errors.cpp). Through the call board
// (observe/refusal.hpp) the erring rank reads the call the others published and takes part in it
// with stand-in data: it returns its own error (the message says it took part), the others hold
// the result of the ranks that did not err (the erring rank contributed the op's identity; a
// broadcast root that erred sent zeros) and return PAPCOLL_ERR_PEER naming it where their result
// lacks its data (else PAPCOLL_SUCCESS), nobody hangs, nothing the erring rank passed is written,
// and a valid call on every rank afterwards is exact. When every rank refuses alike, every rank
// returns its error without communicating.
#include <mpi.h>

#include <cstring>
#include <string>
#include <vector>

#include "mpi_check.hpp"
#include "papcoll/papcoll.h"

using papcoll_test::Checker;

namespace {

constexpr int kN = 3000;

int val(int rank, int i) { return 5 * rank + i % 977; }

papcoll_options with(const char* algo) {
  papcoll_options o;
  papcoll_options_init(&o);
  o.algorithm = algo;
  return o;
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
  chk.expect(ok, "valid allreduce after " + after + ": rc " + std::to_string(rc) + " " +
                     papcoll_last_error());
}

int sum_without(int p, int i, int without) {
  int s = 0;
  for (int q = 0; q < p; ++q)
    if (q != without) s += val(q, i);
  return s;
}

// The erring rank's code and message; PAPCOLL_ERR_PEER naming it where a rank's result lacks its
// data (`reader`), else success.
void codes(Checker& chk, int rc, int e, int want, const std::string& what, bool reader) {
  // One check on every rank (the Checker combines checks by position).
  if (chk.rank() == e) {
    const bool took_part = std::strstr(papcoll_last_error(), "took part in the other ranks'") !=
                           nullptr;
    chk.expect(rc == want && took_part,
               what + " (erring rank): returned " + std::to_string(rc) + ", expected " +
                   std::to_string(want) +
                   " with a message saying it took part: " + papcoll_last_error());
  } else if (reader) {
    chk.expect(rc == PAPCOLL_ERR_PEER &&
                   std::strstr(papcoll_last_error(), ("rank " + std::to_string(e) + " (").c_str()),
               what + " (other rank): returned " + std::to_string(rc) +
                   ", expected PAPCOLL_ERR_PEER naming rank " + std::to_string(e) + ": " +
                   papcoll_last_error());
  } else {
    chk.expect_success(rc, what + " (other rank)");
  }
}

enum class Fault { count, datatype, op, algorithm, options };
const char* fault_name(Fault f) {
  switch (f) {
    case Fault::count: return "negative count";
    case Fault::datatype: return "MPI_DATATYPE_NULL";
    case Fault::op: return "MPI_OP_NULL";
    case Fault::algorithm: return "unknown algorithm";
    case Fault::options: return "negative blocks";
  }
  return "?";
}
int fault_code(Fault f) { return f == Fault::algorithm ? PAPCOLL_ERR_ALGORITHM : PAPCOLL_ERR_ARG; }

void allreduce_case(Checker& chk, const char* algo, Fault f, int e) {
  const int p = chk.size(), rank = chk.rank();
  std::vector<int> x(kN), y(kN, -1);
  for (int i = 0; i < kN; ++i) x[i] = val(rank, i);
  int count = kN;
  MPI_Datatype type = MPI_INT;
  MPI_Op op = MPI_SUM;
  papcoll_options o = with(algo);
  if (rank == e) {
    switch (f) {
      case Fault::count: count = -1; break;
      case Fault::datatype: type = MPI_DATATYPE_NULL; break;
      case Fault::op: op = MPI_OP_NULL; break;
      case Fault::algorithm: o.algorithm = "no-such-algorithm"; break;
      case Fault::options: o.blocks = -2; break;
    }
  }
  const std::string what = std::string("allreduce ") + algo + ", rank " + std::to_string(e) + ": " +
                           fault_name(f);
  codes(chk, papcoll_allreduce(x.data(), y.data(), count, type, op, MPI_COMM_WORLD, &o), e,
        fault_code(f), what, true);
  bool ok = true;
  for (int i = 0; i < kN && ok; ++i)
    ok = rank == e ? (y[i] == -1 && x[i] == val(rank, i)) : y[i] == sum_without(p, i, e);
  chk.expect(ok, what + ": results (the erring rank counted as the identity; its buffers "
                        "untouched)");
  in_step(chk, what);
}

enum class ReduceFault { count, op, root };
void reduce_case(Checker& chk, const char* algo, ReduceFault f, int e) {
  const int p = chk.size(), rank = chk.rank(), root = 0;
  std::vector<int> x(kN), y(kN, -1);
  for (int i = 0; i < kN; ++i) x[i] = val(rank, i);
  int count = kN, r = root;
  MPI_Op op = MPI_SUM;
  if (rank == e) {
    if (f == ReduceFault::count) count = -1;
    if (f == ReduceFault::op) op = MPI_OP_NULL;
    if (f == ReduceFault::root) r = p + 3;
  }
  const char* names[] = {"negative count", "MPI_OP_NULL", "root out of range"};
  const std::string what = std::string("reduce ") + algo + ", rank " + std::to_string(e) + ": " +
                           names[static_cast<int>(f)];
  const papcoll_options o = with(algo);
  codes(chk, papcoll_reduce(x.data(), y.data(), count, MPI_INT, op, r, MPI_COMM_WORLD, &o), e,
        PAPCOLL_ERR_ARG, what, rank == root);
  bool ok = true;
  for (int i = 0; i < kN && ok; ++i) {
    if (rank == e)
      ok = y[i] == -1 && x[i] == val(rank, i);
    else if (rank == root)
      ok = y[i] == sum_without(p, i, e);
  }
  chk.expect(ok, what + ": results");
  in_step(chk, what);
}

enum class BcastFault { count, datatype, root };
void bcast_case(Checker& chk, const char* algo, BcastFault f, int e) {
  const int p = chk.size(), rank = chk.rank(), root = 1 % p;
  std::vector<int> b(kN, rank == root ? 3 : -1);
  int count = kN, r = root;
  MPI_Datatype type = MPI_INT;
  if (rank == e) {
    if (f == BcastFault::count) count = -1;
    if (f == BcastFault::datatype) type = MPI_DATATYPE_NULL;
    if (f == BcastFault::root) r = -1;
  }
  const char* names[] = {"negative count", "MPI_DATATYPE_NULL", "root out of range"};
  const std::string what = std::string("bcast ") + algo + ", rank " + std::to_string(e) +
                           (e == root ? " (the root)" : "") + ": " + names[static_cast<int>(f)];
  const papcoll_options o = with(algo);
  codes(chk, papcoll_bcast(b.data(), count, type, r, MPI_COMM_WORLD, &o), e, PAPCOLL_ERR_ARG, what,
        e == root);
  bool ok = true;
  // An erring root sends zeros (its stand-in), which the others cannot tell from data.
  for (int i = 0; i < kN && ok; ++i)
    ok = rank == e ? b[i] == (rank == root ? 3 : -1) : b[i] == (e == root ? 0 : 3);
  chk.expect(ok, what + ": results");
  in_step(chk, what);
}

// Every rank refuses alike: each returns its own error at once, nobody communicates.
void all_refuse(Checker& chk) {
  std::vector<int> x(10, 1), y(10, -1);
  const papcoll_options o = with("native");
  const int rc = papcoll_allreduce(x.data(), y.data(), -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &o);
  chk.expect_code(rc, PAPCOLL_ERR_ARG, "every rank's count is negative");
  chk.expect(std::strstr(papcoll_last_error(), "took part") == nullptr,
             std::string("an agreed refusal takes part in nothing: ") + papcoll_last_error());
  in_step(chk, "every rank refused");
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int status = 0;
  {
    Checker chk("test_refusal_board");
    const int p = chk.size();
    in_step(chk, "nothing");
    if (p >= 2) {
      for (const char* algo : {"auto", "native", "ring", "rabenseifner"})
        for (Fault f : {Fault::count, Fault::datatype, Fault::op, Fault::algorithm, Fault::options})
          allreduce_case(chk, algo, f, p - 1);
      // A run of equal calls longer than the descriptor ring: the others publish the run's
      // descriptor once and extend it (call_board.hpp); the erring rank still finds its call.
      for (int i = 0; i < 6; ++i) in_step(chk, "a run of equal calls");
      allreduce_case(chk, "ring", Fault::count, 0);
      for (const char* algo : {"auto", "native", "binomial", "ring"})
        for (ReduceFault f : {ReduceFault::count, ReduceFault::op, ReduceFault::root})
          reduce_case(chk, algo, f, p - 1);
      reduce_case(chk, "binomial", ReduceFault::count, 0);  // the root errs
      for (const char* algo : {"auto", "native", "circulant", "binomial"})
        for (BcastFault f : {BcastFault::count, BcastFault::datatype, BcastFault::root}) {
          bcast_case(chk, algo, f, 0);      // a non-root (root is 1)
          bcast_case(chk, algo, f, 1 % p);  // the root
        }
      all_refuse(chk);
    }
    status = chk.finish();
  }
  MPI_Finalize();
  return status;
}
