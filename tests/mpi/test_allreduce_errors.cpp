// Misuse of papcoll_allreduce must return an error code (the same on every rank where the misuse
// is the same everywhere) and never abort or hang; a non-commutative op must be refused by the
// schedule algorithms and handled correctly by "auto".
#include <mpi.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "mpi_check.hpp"
#include "papcoll/papcoll.h"

using papcoll_test::Checker;

namespace {

// 2x2 matrices of unsigned ints with multiplication mod 2^32: associative, not commutative.
using Mat = unsigned[4];

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

void argument_errors(Checker& chk) {
  int x[4] = {1, 2, 3, 4}, y[4] = {0};
  const papcoll_options ring = with_algo("ring");
  chk.expect_code(papcoll_allreduce(x, y, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &ring),
                  PAPCOLL_ERR_ARG, "negative count");
  chk.expect(std::strstr(papcoll_last_error(), "count") != nullptr,
             std::string("negative count message names count: ") + papcoll_last_error());
  chk.expect_code(papcoll_allreduce(x, nullptr, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &ring),
                  PAPCOLL_ERR_ARG, "NULL recvbuf");
  chk.expect_code(papcoll_allreduce(x, y, 4, MPI_INT, MPI_SUM, MPI_COMM_NULL, &ring),
                  PAPCOLL_ERR_ARG, "MPI_COMM_NULL");
  chk.expect_code(papcoll_allreduce(x, y, 4, MPI_DATATYPE_NULL, MPI_SUM, MPI_COMM_WORLD, &ring),
                  PAPCOLL_ERR_ARG, "MPI_DATATYPE_NULL");
  chk.expect_code(papcoll_allreduce(x, y, 4, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD, &ring),
                  PAPCOLL_ERR_ARG, "MPI_OP_NULL");
  papcoll_options o = ring;
  o.version = PAPCOLL_OPTIONS_VERSION + 1;
  chk.expect_code(papcoll_allreduce(x, y, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &o), PAPCOLL_ERR_ARG,
                  "options version mismatch");
  o = ring;
  o.blocks = -2;
  chk.expect_code(papcoll_allreduce(x, y, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &o), PAPCOLL_ERR_ARG,
                  "negative blocks");
  o = ring;
  o.beta = std::numeric_limits<double>::quiet_NaN();
  chk.expect_code(papcoll_allreduce(x, y, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &o), PAPCOLL_ERR_ARG,
                  "NaN beta");
  o = with_algo("no-such-algorithm");
  chk.expect_code(papcoll_allreduce(x, y, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &o),
                  PAPCOLL_ERR_ALGORITHM, "unknown algorithm");
  chk.expect(std::strstr(papcoll_last_error(), "ring") != nullptr &&
                 std::strstr(papcoll_last_error(), "prr") != nullptr,
             std::string("unknown algorithm message lists the valid names: ") +
                 papcoll_last_error());

  const int p = chk.size();
  if (p >= 2) {  // an intercommunicator between the two halves of MPI_COMM_WORLD
    MPI_Comm half, inter;
    const int color = chk.rank() < p / 2 ? 0 : 1;
    MPI_Comm_split(MPI_COMM_WORLD, color, chk.rank(), &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, color == 0 ? p / 2 : 0, 7, &inter);
    chk.expect_code(papcoll_allreduce(x, y, 4, MPI_INT, MPI_SUM, inter, &ring), PAPCOLL_ERR_ARG,
                    "intercommunicator");
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
  } else {
    chk.expect(true, "intercommunicator (needs 2 ranks)");
  }
}

void arrival_errors(Checker& chk) {
  const int p = chk.size(), rank = chk.rank();
  int x[8] = {0}, y[8] = {0};
  const double nan = std::numeric_limits<double>::quiet_NaN();
  papcoll_options o = with_algo("prr");
  std::vector<double> a(static_cast<size_t>(p), 0.0);
  o.arrivals = a.data();

  a[0] = nan;
  o.arrivals_agreed = 1;
  chk.expect_code(papcoll_allreduce(x, y, 8, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &o),
                  PAPCOLL_ERR_ARRIVALS, "NaN arrival (agreed)");
  a[0] = std::numeric_limits<double>::infinity();
  chk.expect_code(papcoll_allreduce(x, y, 8, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &o),
                  PAPCOLL_ERR_ARRIVALS, "infinite arrival (agreed)");

  // Not agreed: only rank 0's vector counts, and its verdict must reach every rank.
  o.arrivals_agreed = 0;
  a[0] = rank == 0 ? nan : 0.0;
  chk.expect_code(papcoll_allreduce(x, y, 8, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &o),
                  PAPCOLL_ERR_ARRIVALS, "NaN arrival on rank 0 only (not agreed)");
  a[0] = rank == 0 ? 0.0 : nan;
  for (int i = 0; i < 8; ++i) x[i] = rank + i;
  const int rc = papcoll_allreduce(x, y, 8, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &o);
  bool ok = rc == PAPCOLL_SUCCESS;
  for (int i = 0; i < 8 && ok; ++i) ok = y[i] == p * (p - 1) / 2 + p * i;
  chk.expect(ok, "NaN arrival on other ranks is ignored when not agreed: rc " + std::to_string(rc) +
                     " " + papcoll_last_error());

  a[0] = 0.0;
  o.arrivals_count = p + 1;
  chk.expect_code(papcoll_allreduce(x, y, 8, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &o),
                  PAPCOLL_ERR_ARRIVALS, "wrong arrivals_count (not agreed)");
  o.arrivals_agreed = 1;
  chk.expect_code(papcoll_allreduce(x, y, 8, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &o),
                  PAPCOLL_ERR_ARRIVALS, "wrong arrivals_count (agreed)");
}

void non_commutative(Checker& chk) {
  const int rank = chk.rank();
  MPI_Datatype mat;
  MPI_Type_contiguous(4, MPI_UNSIGNED, &mat);
  MPI_Type_commit(&mat);
  MPI_Op op;
  MPI_Op_create(mat_mul, 0, &op);
  constexpr int kCount = 37;
  std::vector<unsigned> in(4 * kCount), want(4 * kCount), got(4 * kCount);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = static_cast<unsigned>(papcoll_test::mix(static_cast<uint64_t>(rank), i));
  MPI_Allreduce(in.data(), want.data(), kCount, mat, op, MPI_COMM_WORLD);

  for (const char* algo : {"ring", "prr", "rabenseifner"}) {
    const papcoll_options o = with_algo(algo);
    chk.expect_code(papcoll_allreduce(in.data(), got.data(), kCount, mat, op, MPI_COMM_WORLD, &o),
                    PAPCOLL_ERR_OP, std::string("non-commutative op with ") + algo);
  }
  for (const char* algo : {"auto", static_cast<const char*>(nullptr)}) {
    const papcoll_options o = with_algo(algo);
    std::fill(got.begin(), got.end(), 0u);
    const int rc = papcoll_allreduce(in.data(), got.data(), kCount, mat, op, MPI_COMM_WORLD, &o);
    chk.expect(rc == PAPCOLL_SUCCESS && got == want,
               std::string("non-commutative op with ") + (algo ? algo : "NULL") +
                   " falls back to MPI_Allreduce: rc " + std::to_string(rc) + " " +
                   papcoll_last_error());
  }
  MPI_Op_free(&op);
  MPI_Type_free(&mat);
}

void queries(Checker& chk) {
  const char* names = papcoll_algorithms("allreduce");
  chk.expect(names != nullptr && std::strstr(names, "ring") && std::strstr(names, "prr") &&
                 std::strstr(names, "native"),
             std::string("papcoll_algorithms(allreduce) = ") + (names ? names : "NULL"));
  chk.expect(papcoll_algorithms("no-such-collective") == nullptr,
             "papcoll_algorithms of an unknown collective is NULL");
  chk.expect(papcoll_algorithms(nullptr) == nullptr, "papcoll_algorithms(NULL) is NULL");
  for (int code = PAPCOLL_SUCCESS; code <= PAPCOLL_ERR_INTERNAL; ++code)
    chk.expect(std::strlen(papcoll_error_string(code)) > 0,
               "papcoll_error_string(" + std::to_string(code) + ") is empty");
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int status = 0;
  {
    Checker chk("test_allreduce_errors");
    argument_errors(chk);
    arrival_errors(chk);
    non_commutative(chk);
    queries(chk);
    status = chk.finish();
  }
  MPI_Finalize();
  return status;
}
