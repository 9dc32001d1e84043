// papcoll_gatherv over every gatherv algorithm, "native" and "auto" x every root x portion shapes
// (random with zeros, one rank has everything, equal, all empty) x displacements (packed,
// reversed with gaps) x MPI_IN_PLACE at the root x links (defaults, other Hockney parameters, a
// heterogeneous model file). Every rank knows every portion (portion_value of the case's seed),
// so the root checks its whole receive buffer exactly, gaps, holes and guard included, and every
// rank checks that its send buffer is unchanged. Also send and receive types that differ with
// equal bytes (dense and strided, through MPI_Pack), a schedule cache that must not mix counts,
// and the error codes: bad model files, unknown algorithm, root's negative or NULL counts, a rank
// whose size differs from the root's count for it (it fails; the others' data still arrives).
#include <mpi.h>

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
    return "gatherv " + algo + " root=" + std::to_string(root) + " " + portions_name(shape) +
           " base=" + std::to_string(base) + (gaps ? " gaps" : " packed") +
           (in_place ? " in-place" : "") + " links=" + links->name + " types=" + send.name + "->" +
           recv.name + " seed=" + std::to_string(seed);
  }
};

void run(Checker& chk, const Case& c) {
  const int rank = chk.rank(), p = chk.size();
  const bool is_root = rank == c.root;
  const bool in_place = is_root && c.in_place;
  const std::vector<int> units = counts_of(c.shape, p, c.base, c.seed);
  const int per_unit = c.send.ints == 2 || c.recv.ints == 2 ? 2 : 1;
  std::vector<int> recv_counts(static_cast<size_t>(p));
  for (int o = 0; o < p; ++o) recv_counts[o] = units[o] * per_unit / c.recv.ints;
  int total = 0;
  const std::vector<int> displs = displs_of(recv_counts, c.gaps, &total);
  std::vector<int> recv =
      portions_buffer(c.recv, recv_counts, displs, total, c.seed, false, kSentinel);
  if (in_place)
    for (int j = 0; j < units[rank] * per_unit; ++j)
      recv[c.recv.at(displs[rank], j)] = portion_value(c.seed, rank, j);
  const int send_count = units[rank] * per_unit / c.send.ints;
  std::vector<int> send(static_cast<size_t>(send_count + 1) * c.send.stride, kSentinel);
  for (int j = 0; j < units[rank] * per_unit; ++j)
    send[c.send.at(0, j)] = portion_value(c.seed, rank, j);
  const std::vector<int> send_before = send;

  papcoll_options opt;
  papcoll_options_init(&opt);
  opt.algorithm = c.algo.c_str();
  opt.alpha = c.links->alpha;
  opt.beta = c.links->beta;
  opt.model_file = c.links->model_file.empty() ? nullptr : c.links->model_file.c_str();
  const bool native = c.algo == "native";
  const int rc = papcoll_gatherv(in_place ? MPI_IN_PLACE : send.data(), send_count, c.send.type,
                                 is_root ? recv.data() : nullptr,
                                 is_root ? recv_counts.data() : nullptr,
                                 is_root ? displs.data() : nullptr,
                                 is_root || native ? c.recv.type : MPI_DATATYPE_NULL, c.root,
                                 MPI_COMM_WORLD, &opt);
  if (!chk.expect_success(rc, c.describe())) return;
  chk.expect(send == send_before, c.describe() + ": send buffer was modified");
  if (!is_root) {
    chk.expect(true, "");  // the root's data check: the same number of checks on every rank
    return;
  }
  const std::vector<int> want =
      portions_buffer(c.recv, recv_counts, displs, total, c.seed, true, kSentinel);
  size_t bad = 0;
  while (bad < want.size() && want[bad] == recv[bad]) ++bad;
  chk.expect(bad == want.size(),
             c.describe() + ": recvbuf int " + std::to_string(bad) + " = " +
                 (bad < want.size()
                      ? std::to_string(recv[bad]) + ", expected " + std::to_string(want[bad])
                      : ""));
}

void cache_keys_on_counts(Checker& chk, const Sides& sides, const Links& links) {
  for (const char* algo : {"traff", "auto", "binomial-maxfirst"})
    for (uint64_t seed : {901, 902, 901, 903})
      run(chk, {algo, chk.size() - 1, Portions::random, 40, false, false, &links, sides.integer(),
                sides.integer(), seed});
}

// Rank r sends `sendcount` ints of value 100 + r; portion o lands at 2 * o in recv.
int call_with(const Links& links, const char* algo, int root, int sendcount, const int* counts,
              std::vector<int>& recv) {
  int rank = 0, p = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  const std::vector<int> send(8, 100 + rank);
  std::vector<int> displs(static_cast<size_t>(p));
  for (int i = 0; i < p; ++i) displs[i] = 2 * i;
  papcoll_options opt;
  papcoll_options_init(&opt);
  opt.algorithm = algo;
  opt.model_file = links.model_file.empty() ? nullptr : links.model_file.c_str();
  return papcoll_gatherv(send.data(), sendcount, MPI_INT, recv.data(), counts, displs.data(),
                         MPI_INT, root, MPI_COMM_WORLD, &opt);
}

void model_errors(Checker& chk) {
  const int p = chk.size();
  std::vector<int> counts(static_cast<size_t>(p), 1), recv(2 * static_cast<size_t>(p), 0);
  const std::string header = "papcoll-model 1\np " + std::to_string(p) + "\n";
  const std::string texts[] = {header + "default 1e-6 nan\nend\n",
                               heterogeneous_model_text(p + 1, 3),
                               p > 1 ? header + "1 0 1e-6 1e-9\nend\n"
                                     : header + "default inf 0\nend\n"};
  for (const std::string& text : texts) {
    const std::string path = shared_model_file(text);
    const Links links{"bad", 0, 0, path};
    for (int root : {0, p - 1})
      chk.expect_code(call_with(links, "traff-model", root, 1, counts.data(), recv),
                      PAPCOLL_ERR_MODEL, "bad model file root=" + std::to_string(root));
    remove_model_file(path);
  }
}

void argument_errors(Checker& chk) {
  const int p = chk.size(), rank = chk.rank();
  const Links none{"none", 0, 0, ""};
  std::vector<int> counts(static_cast<size_t>(p), 2), recv(2 * static_cast<size_t>(p), 0);
  chk.expect_code(call_with(none, "nope", 0, 2, counts.data(), recv), PAPCOLL_ERR_ALGORITHM,
                  "unknown algorithm");
  chk.expect_code(call_with(none, "auto", -1, 2, counts.data(), recv), PAPCOLL_ERR_ARG,
                  "negative root");
  // The root's problems reach every rank.
  chk.expect_code(call_with(none, "auto", 0, 2, nullptr, recv), PAPCOLL_ERR_ARG,
                  "NULL recvcounts at the root");
  std::vector<int> negative = counts;
  negative[0] = -1;
  chk.expect_code(call_with(none, "binomial", p - 1, 2, negative.data(), recv), PAPCOLL_ERR_ARG,
                  "negative recvcounts at the root");
  // One rank's size differs from the root's count for it: that rank fails, its portion arrives
  // as zeros, every other portion arrives, and the root, whose result lacks that rank's data,
  // returns PAPCOLL_ERR_PEER.
  if (p >= 2)
    for (const char* algo : {"binomial", "linear", "traff-model"}) {
      const int odd = 1;
      recv.assign(2 * static_cast<size_t>(p), -1);
      const int rc = call_with(none, algo, 0, rank == odd ? 1 : 2, counts.data(), recv);
      chk.expect_code(rc,
                      rank == odd ? PAPCOLL_ERR_ARG
                      : rank == 0 ? PAPCOLL_ERR_PEER
                                  : PAPCOLL_SUCCESS,
                      std::string(algo) + ": sendcount differs on rank 1");
      bool ok = true;
      if (rank == 0)
        for (int o = 0; o < p; ++o)
          for (int k = 0; k < 2; ++k) ok = ok && recv[2 * o + k] == (o == odd ? 0 : 100 + o);
      chk.expect(ok, std::string(algo) + ": data at the root with rank 1's size wrong");
    }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rc = 0;
  {
    Checker chk("test_gatherv");
    const int p = chk.size();
    const Sides sides;
    const std::string model_path = shared_model_file(heterogeneous_model_text(p, 78));
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
    uint64_t seed = 500;
    for (const std::string& algo : algorithms_of("gatherv")) {
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
      const Side type_pairs[][2] = {{sides.pair(), sides.integer()},
                                    {sides.strided(), sides.integer()},
                                    {sides.integer(), sides.strided()},
                                    {sides.strided(), sides.pair()}};
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
