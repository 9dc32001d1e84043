// papcoll_scatterv over every scatterv algorithm, "native" and "auto" x every root x portion
// shapes (random with zeros, one rank has everything, equal, all empty) x displacements (packed,
// reversed with gaps) x MPI_IN_PLACE at the root x links (defaults, other Hockney parameters, a
// heterogeneous model file). Every rank knows every portion (portion_value of the case's seed),
// so each checks its own receive buffer exactly, guards and holes included, and the root checks
// that its send buffer is unchanged. Also send and receive types that differ with equal bytes
// (dense and strided, through MPI_Pack), a schedule cache that must not mix counts, and the error
// codes: model files with NaN, missing links or another p, unknown algorithm, negative counts at
// the root and elsewhere, sizes that differ between the root and a rank, options versions.
#include <mpi.h>

#include <numeric>
#include <string>
#include <vector>

#include "mpi_check.hpp"
#include "papcoll/papcoll.h"
#include "sg_test_util.hpp"

using namespace papcoll_test;

namespace {

constexpr int kSentinel = -99;

struct Case {
  std::string algo;
  int root;
  Portions shape;
  int base;
  bool gaps;
  bool in_place;
  const Links* links;
  Side send, recv;
  uint64_t seed;
  std::string describe() const {
    return "scatterv " + algo + " root=" + std::to_string(root) + " " + portions_name(shape) +
           " base=" + std::to_string(base) + (gaps ? " gaps" : " packed") +
           (in_place ? " in-place" : "") + " links=" + links->name + " types=" + send.name + "->" +
           recv.name + " seed=" + std::to_string(seed);
  }
};

papcoll_options options_of(const Case& c) {
  papcoll_options opt;
  papcoll_options_init(&opt);
  opt.algorithm = c.algo.c_str();
  opt.alpha = c.links->alpha;
  opt.beta = c.links->beta;
  opt.model_file = c.links->model_file.empty() ? nullptr : c.links->model_file.c_str();
  return opt;
}

void run(Checker& chk, const Case& c) {
  const int rank = chk.rank(), p = chk.size();
  const bool is_root = rank == c.root;
  const bool in_place = is_root && c.in_place;
  const std::vector<int> units = counts_of(c.shape, p, c.base, c.seed);
  // Portion o has units[o] * 2 ints when one side's elements hold 2, else units[o].
  const int per_unit = c.send.ints == 2 || c.recv.ints == 2 ? 2 : 1;
  std::vector<int> send_counts(static_cast<size_t>(p));
  for (int o = 0; o < p; ++o) send_counts[o] = units[o] * per_unit / c.send.ints;
  int total = 0;
  const std::vector<int> displs = displs_of(send_counts, c.gaps, &total);
  const std::vector<int> send =
      portions_buffer(c.send, send_counts, displs, total, c.seed, true, kSentinel);
  const std::vector<int> send_before = send;
  const int recv_count = units[rank] * per_unit / c.recv.ints;
  std::vector<int> recv(static_cast<size_t>(recv_count + 1) * c.recv.stride, kSentinel);

  const papcoll_options opt = options_of(c);
  const bool native = c.algo == "native";
  const int rc = papcoll_scatterv(
      is_root ? send.data() : nullptr, is_root ? send_counts.data() : nullptr,
      is_root ? displs.data() : nullptr, is_root || native ? c.send.type : MPI_DATATYPE_NULL,
      in_place ? MPI_IN_PLACE : recv.data(), recv_count, c.recv.type, c.root, MPI_COMM_WORLD, &opt);
  if (!chk.expect_success(rc, c.describe())) return;
  std::vector<int> want(recv.size(), kSentinel);
  if (!in_place)
    for (int j = 0; j < units[rank] * per_unit; ++j)
      want[c.recv.at(0, j)] = portion_value(c.seed, rank, j);
  size_t bad = 0;
  while (bad < want.size() && want[bad] == recv[bad]) ++bad;
  chk.expect(bad == want.size(),
             c.describe() + ": recvbuf int " + std::to_string(bad) + " = " +
                 (bad < want.size()
                      ? std::to_string(recv[bad]) + ", expected " + std::to_string(want[bad])
                      : ""));
  chk.expect(send == send_before, c.describe() + ": send buffer was modified");
}

// The schedule cache must key on the counts: the same algorithm and root with other counts must
// not reuse the first call's tree.
void cache_keys_on_counts(Checker& chk, const Sides& sides, const Links& links) {
  for (const char* algo : {"traff", "auto", "binomial-minfirst"})
    for (uint64_t seed : {901, 902, 901, 903})
      run(chk, {algo, chk.size() - 1, Portions::random, 40, false, false, &links, sides.integer(),
                sides.integer(), seed});
}

int call_with(const Links& links, const char* algo, int root, const std::vector<int>& counts,
              int recvcount, std::vector<int>& recv) {
  static const std::vector<int> send(1024, 5);
  std::vector<int> displs(counts.size(), 0);
  papcoll_options opt;
  papcoll_options_init(&opt);
  opt.algorithm = algo;
  opt.model_file = links.model_file.empty() ? nullptr : links.model_file.c_str();
  return papcoll_scatterv(send.data(), counts.data(), displs.data(), MPI_INT, recv.data(),
                          recvcount, MPI_INT, root, MPI_COMM_WORLD, &opt);
}

void model_errors(Checker& chk) {
  const int p = chk.size();
  std::vector<int> counts(static_cast<size_t>(p), 1), recv(4, 0);
  const std::string header = "papcoll-model 1\np " + std::to_string(p) + "\n";
  struct Bad {
    const char* what;
    std::string text;
  };
  const Bad bad[] = {
      {"NaN", header + "default 1e-6 nan\nend\n"},
      {"missing links", p > 1 ? header + "0 1 1e-6 1e-9\nend\n" : header + "default -1 0\nend\n"},
      {"wrong p", heterogeneous_model_text(p + 1, 3)},
      {"not a model", "hello\n"},
      {"truncated", header + "default 1e-6 1e-9\n"},
  };
  for (const Bad& b : bad) {
    const std::string path = shared_model_file(b.text);
    const Links links{"bad", 0, 0, path};
    for (int root : {0, p - 1}) {
      const int rc = call_with(links, "auto", root, counts, 1, recv);
      chk.expect_code(rc, PAPCOLL_ERR_MODEL,
                      std::string("model file with ") + b.what + " root=" + std::to_string(root));
      chk.expect(std::string(papcoll_last_error()).find(path) != std::string::npos,
                 std::string("model error names the file: ") + papcoll_last_error());
    }
    remove_model_file(path);
  }
  const Links missing{"missing", 0, 0, "/nonexistent/papcoll-model.txt"};
  chk.expect_code(call_with(missing, "binomial", 0, counts, 1, recv), PAPCOLL_ERR_MODEL,
                  "missing model file");
  // After errors, a good call works.
  const Links none{"none", 0, 0, ""};
  recv[0] = 0;
  chk.expect_success(call_with(none, "binomial", 0, counts, 1, recv), "good call after errors");
  chk.expect(recv[0] == 5, "good call after errors: data");
}

void argument_errors(Checker& chk) {
  const int p = chk.size(), rank = chk.rank();
  const Links none{"none", 0, 0, ""};
  std::vector<int> counts(static_cast<size_t>(p), 2), recv(4, 0);
  chk.expect_code(call_with(none, "no-such-tree", 0, counts, 2, recv), PAPCOLL_ERR_ALGORITHM,
                  "unknown algorithm");
  chk.expect_code(call_with(none, "auto", p, counts, 2, recv), PAPCOLL_ERR_ARG,
                  "root out of range");
  // A root's problem reaches every rank.
  std::vector<int> negative = counts;
  negative[p - 1] = -3;
  chk.expect_code(call_with(none, "auto", 0, negative, rank == p - 1 ? -3 : 2, recv),
                  PAPCOLL_ERR_ARG, "negative sendcounts at the root");
  chk.expect(rank == 0 ||
                 std::string(papcoll_last_error()).find("the root (rank 0)") != std::string::npos,
             std::string("non-root message names the root: ") + papcoll_last_error());
  // Another rank's own problem: that rank fails, the others get their data.
  // ("native" is MPI's own collective, which would be left waiting for that rank.)
  for (const char* algo : {"binomial", "linear", "traff"}) {
    if (p < 2) break;
    const int odd = p - 1;
    recv.assign(4, 0);
    int rc = call_with(none, algo, 0, counts, rank == odd ? 3 : 2, recv);
    chk.expect_code(rc, rank == odd ? PAPCOLL_ERR_ARG : PAPCOLL_SUCCESS,
                    std::string(algo) + ": recvcount differs from the root's count on rank " +
                        std::to_string(odd));
    chk.expect(rank == odd ? recv[0] == 0 : recv[0] == 5 && recv[1] == 5,
               std::string(algo) + ": data with one rank's size mismatch");
    recv.assign(4, 0);
    rc = call_with(none, algo, 0, counts, rank == odd ? -1 : 2, recv);
    chk.expect_code(rc, rank == odd ? PAPCOLL_ERR_ARG : PAPCOLL_SUCCESS,
                    std::string(algo) + ": negative recvcount on one rank");
    chk.expect(rank == odd ? recv[0] == 0 : recv[0] == 5, std::string(algo) + ": data");
  }
  // Options of the first version (without model_file) are read; an unknown version is refused.
  papcoll_options v1;
  papcoll_options_init(&v1);
  v1.version = 1;
  v1.model_file = "/nonexistent/must-not-be-read";  // not a version-1 field: ignored
  std::vector<int> displs(static_cast<size_t>(p), 0);
  const std::vector<int> send(4, 5);
  chk.expect_success(papcoll_scatterv(send.data(), counts.data(), displs.data(), MPI_INT,
                                      recv.data(), 2, MPI_INT, 0, MPI_COMM_WORLD, &v1),
                     "options version 1");
  v1.version = PAPCOLL_OPTIONS_VERSION + 1;
  chk.expect_code(papcoll_scatterv(send.data(), counts.data(), displs.data(), MPI_INT, recv.data(),
                                   2, MPI_INT, 0, MPI_COMM_WORLD, &v1),
                  PAPCOLL_ERR_ARG, "options version too new");
  // MPI_IN_PLACE is for the root only.
  if (p > 1) {
    const int rc = papcoll_scatterv(send.data(), counts.data(), displs.data(), MPI_INT,
                                    rank == 1 ? MPI_IN_PLACE : recv.data(), 2, MPI_INT, 0,
                                    MPI_COMM_WORLD, nullptr);
    chk.expect_code(rc, rank == 1 ? PAPCOLL_ERR_ARG : PAPCOLL_SUCCESS, "MPI_IN_PLACE off the root");
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rc = 0;
  {
    Checker chk("test_scatterv");
    const int p = chk.size();
    const Sides sides;
    const std::string model_path = shared_model_file(heterogeneous_model_text(p, 77));
    const Links links[] = {{"defaults", 0, 0, ""},
                           {"alpha-beta", 2e-4, 3e-7, ""},
                           {"model", 0, 0, model_path}};
    struct Shape {
      Portions portions;
      int base;
    };
    const Shape shapes[] = {{Portions::random, 1},
                            {Portions::random, 60},
                            {Portions::one, 7},
                            {Portions::equal, 3},
                            {Portions::zero, 0}};
    uint64_t seed = 100;
    for (const std::string& algo : algorithms_of("scatterv")) {
      for (int root = 0; root < p; ++root)
        for (const Shape& s : shapes) {
          ++seed;
          run(chk, {algo, root, s.portions, s.base, seed % 2 == 0, seed % 3 == 0, &links[seed % 3],
                    sides.integer(), sides.integer(), seed});
        }
      // Large portions: rendezvous messages, relays forwarding while others still receive.
      for (bool in_place : {false, true}) {
        ++seed;
        run(chk, {algo, p / 2, Portions::random, 30011, in_place, in_place, &links[seed % 3],
                  sides.integer(), sides.integer(), seed});
      }
      // Types that differ between the sides, with the same bytes.
      const Side type_pairs[][2] = {{sides.integer(), sides.pair()},
                                    {sides.strided(), sides.integer()},
                                    {sides.integer(), sides.strided()},
                                    {sides.pair(), sides.strided()}};
      for (const auto& tp : type_pairs)
        for (int root : {0, p - 1}) {
          ++seed;
          run(chk,
              {algo, root, Portions::random, 9, true, false, &links[seed % 3], tp[0], tp[1], seed});
        }
    }
    cache_keys_on_counts(chk, sides, links[2]);
    model_errors(chk);
    argument_errors(chk);
    remove_model_file(model_path);
    rc = chk.finish();
  }
  MPI_Finalize();
  return rc;
}
