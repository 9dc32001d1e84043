// PAPCOLL_CHECK=1 (ctest sets it): a call whose ranks disagree on count, datatype, op, root or
// algorithm returns an error on every rank naming every rank's value of the first field that
// differs ("ranks 0-2 have 1000, rank 3 has 999"), instead of hanging or computing garbage; a
// rank that refuses its own arguments is named on the others (PAPCOLL_ERR_PEER) with its reason;
// agreeing calls, differing descriptions of the same type signature included, succeed.
#include <mpi.h>

#include <cstring>
#include <string>
#include <vector>

#include "mpi_check.hpp"
#include "papcoll/papcoll.h"

using papcoll_test::Checker;

namespace {

bool says(const std::string& want) {
  return std::strstr(papcoll_last_error(), want.c_str()) != nullptr;
}

void mismatch(Checker& chk, int rc, const std::string& what, const std::string& want) {
  chk.expect(rc == PAPCOLL_ERR_ARG && says("PAPCOLL_CHECK") && says(want),
             what + ": rc " + std::to_string(rc) + " message '" + papcoll_last_error() +
                 "', expected it to contain '" + want + "'");
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int status = 0;
  {
    Checker chk("test_call_check");
    const int p = chk.size(), rank = chk.rank(), last = p - 1;
    if (p < 2) {  // nothing can differ
      MPI_Finalize();
      return 0;
    }
    std::vector<int> x(1000, 1), y(1000, 0);
    papcoll_options ring;
    papcoll_options_init(&ring);
    ring.algorithm = "ring";

    // Agreeing calls pass.
    chk.expect_success(papcoll_allreduce(x.data(), y.data(), 1000, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                         &ring),
                       "agreeing allreduce");
    chk.expect(y[0] == p, "agreeing allreduce result");

    // count: the last rank passes 999.
    int rc = papcoll_allreduce(x.data(), y.data(), rank == last ? 999 : 1000, MPI_INT, MPI_SUM,
                               MPI_COMM_WORLD, &ring);
    // "rank 0 has" at 2 ranks, "ranks 0 and 1 have" at 3, "ranks 0-2 have" from 4 on.
    const std::string others = p == 2   ? "rank 0 has "
                               : p == 3 ? "ranks 0 and 1 have "
                                        : "ranks 0-" + std::to_string(p - 2) + " have ";
    const std::string lastr = "rank " + std::to_string(last) + " has ";
    mismatch(chk, rc, "count", "count differs: " + others + "1000, " + lastr + "999");
    // datatype
    rc = papcoll_allreduce(x.data(), y.data(), 1000, rank == last ? MPI_FLOAT : MPI_INT, MPI_SUM,
                           MPI_COMM_WORLD, &ring);
    mismatch(chk, rc, "datatype",
             "datatype differs: " + others + "MPI_INT (count 1000), " + lastr + "MPI_FLOAT");
    // op
    rc = papcoll_allreduce(x.data(), y.data(), 1000, MPI_INT, rank == last ? MPI_MAX : MPI_SUM,
                           MPI_COMM_WORLD, &ring);
    mismatch(chk, rc, "op", "op differs: " + others + "MPI_SUM, " + lastr + "MPI_MAX");
    // root
    rc = papcoll_bcast(x.data(), 10, MPI_INT, rank == last ? 1 % p : 0, MPI_COMM_WORLD, nullptr);
    if (p > 1)
      mismatch(chk, rc, "root", "root differs: " + others + "0, " + lastr + "1");
    else
      chk.expect_success(rc, "root (1 rank)");
    // algorithm
    papcoll_options other = ring;
    other.algorithm = rank == last ? "rabenseifner" : "ring";
    rc = papcoll_allreduce(x.data(), y.data(), 1000, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &other);
    if (p > 1)
      mismatch(chk, rc, "algorithm",
               "algorithm differs: " + others + "'ring', " + lastr + "'rabenseifner'");
    else
      chk.expect_success(rc, "algorithm (1 rank)");
    // operation
    rc = rank == last
             ? papcoll_bcast(x.data(), 10, MPI_INT, 0, MPI_COMM_WORLD, nullptr)
             : papcoll_allreduce(x.data(), y.data(), 10, MPI_INT, MPI_SUM, MPI_COMM_WORLD, nullptr);
    if (p > 1)
      mismatch(chk, rc, "operation",
               "operation differs: " +
                   (p == 2   ? std::string("rank 0 calls ")
                    : p == 3 ? std::string("ranks 0 and 1 call ")
                             : "ranks 0-" + std::to_string(p - 2) + " call ") +
                   "papcoll_allreduce, rank " + std::to_string(last) + " calls papcoll_bcast");
    else
      chk.expect_success(rc, "operation (1 rank)");

    // A refusal without the pattern (a negative count on the last rank) reaches every rank, with
    // its reason.
    rc = papcoll_bcast(x.data(), rank == last ? -1 : 10, MPI_INT, 0, MPI_COMM_WORLD, nullptr);
    chk.expect(rank == last ? rc == PAPCOLL_ERR_ARG && says("count is negative")
                            : rc == PAPCOLL_ERR_PEER &&
                                  says("rank " + std::to_string(last) + " refused the call") &&
                                  says("count is negative (-1)"),
               std::string("negative count on one rank: ") + papcoll_last_error());

    // The same type signature described differently is fine: (n, MPI_INT) at the root,
    // (1, contiguous(n, MPI_INT)) elsewhere.
    MPI_Datatype contig;
    MPI_Type_contiguous(17, MPI_INT, &contig);
    MPI_Type_commit(&contig);
    std::vector<int> b(17, rank == 0 ? 5 : 0);
    rc = rank == 0 ? papcoll_bcast(b.data(), 17, MPI_INT, 0, MPI_COMM_WORLD, nullptr)
                   : papcoll_bcast(b.data(), 1, contig, 0, MPI_COMM_WORLD, nullptr);
    chk.expect(rc == PAPCOLL_SUCCESS && b[16] == 5,
               std::string("same signature, other description: ") + papcoll_last_error());
    MPI_Type_free(&contig);

    // Afterwards every rank is still in step.
    chk.expect_success(papcoll_allreduce(x.data(), y.data(), 1000, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                         &ring),
                       "allreduce after the mismatches");
    chk.expect(y[999] == p, "allreduce after the mismatches: result");
    status = chk.finish();
  }
  MPI_Finalize();
  return status;
}
