// papcoll_bcast over every broadcast algorithm, "native" and "auto" x every root x counts (0, 1,
// fewer elements than blocks, large, odd) x block numbers (default, 1, more than count), on int
// and double data and a strided datatype whose holes must stay untouched. Every rank knows the
// root's data (mix() of the case's seed), so it checks its own result exactly. Also the error
// codes.
#include <mpi.h>

#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "mpi_check.hpp"
#include "papcoll/papcoll.h"

using papcoll_test::Checker;
using papcoll_test::mix;

namespace {

std::vector<std::string> algorithms() {
  std::vector<std::string> names;
  std::stringstream list(papcoll_algorithms("bcast"));
  for (std::string n; std::getline(list, n, ',');) names.push_back(n);
  return names;
}

int value(uint64_t seed, int64_t i) {
  return static_cast<int>(mix(seed, static_cast<uint64_t>(i)) % 1000003);
}

void run_int(Checker& chk, const std::string& algo, int root, int count, int blocks,
             uint64_t seed) {
  const int rank = chk.rank();
  std::vector<int> buf(static_cast<size_t>(count) + 2, -7);  // one guard element each side
  if (rank == root)
    for (int i = 0; i < count; ++i) buf[static_cast<size_t>(i) + 1] = value(seed, i);
  papcoll_options opt;
  papcoll_options_init(&opt);
  opt.algorithm = algo.c_str();
  opt.blocks = blocks;
  const std::string what = algo + " int root=" + std::to_string(root) +
                           " count=" + std::to_string(count) + " blocks=" + std::to_string(blocks);
  const int rc = papcoll_bcast(buf.data() + 1, count, MPI_INT, root, MPI_COMM_WORLD, &opt);
  if (!chk.expect_success(rc, what)) return;
  int bad = -1;
  for (int i = 0; i < count && bad < 0; ++i)
    if (buf[static_cast<size_t>(i) + 1] != value(seed, i)) bad = i;
  chk.expect(bad < 0 && buf.front() == -7 && buf.back() == -7,
             what + (bad >= 0 ? ": element " + std::to_string(bad) + " wrong" : ": guard written"));
}

// Every other double of a buffer (a vector type resized to 2 doubles): the odd slots are holes.
void run_strided(Checker& chk, const std::string& algo, int root, int count, uint64_t seed) {
  MPI_Datatype vec, strided;
  MPI_Type_vector(1, 1, 2, MPI_DOUBLE, &vec);
  MPI_Type_create_resized(vec, 0, 2 * sizeof(double), &strided);
  MPI_Type_commit(&strided);
  const int rank = chk.rank();
  std::vector<double> buf(2 * static_cast<size_t>(count), -1.5);
  if (rank == root)
    for (int i = 0; i < count; ++i) buf[2 * static_cast<size_t>(i)] = value(seed, i) * 0.25;
  papcoll_options opt;
  papcoll_options_init(&opt);
  opt.algorithm = algo.c_str();
  const std::string what = algo + " strided root=" + std::to_string(root) +
                           " count=" + std::to_string(count);
  const int rc = papcoll_bcast(buf.data(), count, strided, root, MPI_COMM_WORLD, &opt);
  MPI_Type_free(&vec);
  MPI_Type_free(&strided);
  if (!chk.expect_success(rc, what)) return;
  bool ok = true;
  for (int i = 0; i < count; ++i)
    ok = ok && buf[2 * static_cast<size_t>(i)] == value(seed, i) * 0.25 &&
         buf[2 * static_cast<size_t>(i) + 1] == -1.5;
  chk.expect(ok, what + ": wrong data or a hole written");
}

void errors(Checker& chk) {
  const int p = chk.size();
  int x = 0;
  chk.expect_code(papcoll_bcast(&x, -1, MPI_INT, 0, MPI_COMM_WORLD, nullptr), PAPCOLL_ERR_ARG,
                  "negative count");
  chk.expect_code(papcoll_bcast(&x, 1, MPI_INT, p, MPI_COMM_WORLD, nullptr), PAPCOLL_ERR_ARG,
                  "root out of range");
  chk.expect_code(papcoll_bcast(&x, 1, MPI_INT, -1, MPI_COMM_WORLD, nullptr), PAPCOLL_ERR_ARG,
                  "negative root");
  chk.expect_code(papcoll_bcast(nullptr, 1, MPI_INT, 0, MPI_COMM_WORLD, nullptr), PAPCOLL_ERR_ARG,
                  "NULL buffer");
  chk.expect_code(papcoll_bcast(&x, 1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD, nullptr),
                  PAPCOLL_ERR_ARG, "null datatype");
  chk.expect_code(papcoll_bcast(&x, 1, MPI_INT, 0, MPI_COMM_NULL, nullptr), PAPCOLL_ERR_ARG,
                  "null communicator");
  papcoll_options opt;
  papcoll_options_init(&opt);
  opt.algorithm = "no-such-bcast";
  chk.expect_code(papcoll_bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD, &opt), PAPCOLL_ERR_ALGORITHM,
                  "unknown algorithm");
  papcoll_options_init(&opt);
  opt.blocks = -2;
  chk.expect_code(papcoll_bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD, &opt), PAPCOLL_ERR_ARG,
                  "negative blocks");
  chk.expect_success(papcoll_bcast(nullptr, 0, MPI_INT, 0, MPI_COMM_WORLD, nullptr),
                     "count 0 with a NULL buffer");
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  {
    Checker chk("test_bcast");
    const int p = chk.size();
    uint64_t seed = 1;
    for (const std::string& algo : algorithms()) {
      for (int root = 0; root < p; ++root)
        for (int count : {0, 1, 5, 4099})
          for (int blocks : {0, 1, 7, count + 3}) {
            // More blocks than elements (empty blocks) only for small counts: with thousands of
            // one-element blocks the run is thousands of rounds of tiny messages.
            if (blocks == count + 3 && count > 100) continue;
            run_int(chk, algo, root, count, blocks, ++seed);
          }
      // Large (the cost model picks the blocks) and a strided type, at the last root.
      run_int(chk, algo, p - 1, 200003, 0, ++seed);
      run_strided(chk, algo, p / 2, 777, ++seed);
    }
    errors(chk);
    const int rc = chk.finish();
    MPI_Finalize();
    return rc;
  }
}
