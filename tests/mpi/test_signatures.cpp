// Ranks that describe the same data differently, as MPI allows when the type signatures match:
// the root sends (n, MPI_INT), others receive (1, contiguous(n, MPI_INT)) or n ints with holes
// (a vector), and the same with a struct of 4 MPI_INT + 8 MPI_DOUBLE (packed at some ranks,
// with holes at others). Every algorithm of bcast, allgatherv, allreduce, reduce, scatterv and
// gatherv is forced in turn, at sizes from 1 element to several MB, and the results are checked
// exactly, holes and gaps included (they must stay untouched). ctest runs it at 2..6 ranks with
// PAPCOLL_CORES_SHARED=1 (one block per message) and =0 (blocks from the cost model, as on a
// machine with a core per rank): papcoll must derive its blocks from what every rank agrees on.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "mpi_check.hpp"
#include "papcoll/papcoll.h"

using papcoll_test::Checker;
using papcoll_test::mix;

namespace {

constexpr int kHole = -77;
constexpr double kHoleD = -7.5;

std::vector<std::string> algorithms(const char* op) {
  std::vector<std::string> names;
  std::stringstream list(papcoll_algorithms(op));
  for (std::string n; std::getline(list, n, ',');) names.push_back(n);
  return names;
}

int ival(uint64_t seed, int64_t i) {
  return static_cast<int>(mix(seed, static_cast<uint64_t>(i)) % 100003);
}

// How a rank describes n ints: plain, one contiguous element, or a vector with a hole after
// every int (only the even slots of 2n ints hold data).
enum class IntForm { plain, contiguous, holes };
const char* form_name(IntForm f) {
  return f == IntForm::plain ? "plain" : f == IntForm::contiguous ? "contiguous" : "holes";
}

struct IntBuffer {
  std::vector<int> mem;
  MPI_Datatype type = MPI_INT;
  int count = 0;
  IntForm form;
  int n;
  IntBuffer(IntForm f, int n_ints, int fill) : form(f), n(n_ints) {
    if (f == IntForm::plain) {
      mem.assign(static_cast<size_t>(n) + 2, fill);
      count = n;
    } else if (f == IntForm::contiguous) {
      mem.assign(static_cast<size_t>(n) + 2, fill);
      MPI_Type_contiguous(n, MPI_INT, &type);
      MPI_Type_commit(&type);
      count = 1;
    } else {
      mem.assign(2 * static_cast<size_t>(n) + 2, kHole);
      for (int i = 0; i < n; ++i) mem[1 + 2 * static_cast<size_t>(i)] = fill;
      MPI_Datatype v;
      MPI_Type_vector(n, 1, 2, MPI_INT, &v);
      MPI_Type_commit(&v);
      type = v;
      count = 1;
    }
    mem.front() = mem.back() = kHole;  // guards
  }
  ~IntBuffer() {
    if (type != MPI_INT) MPI_Type_free(&type);
  }
  int* data() { return mem.data() + 1; }
  int& at(int i) {
    return form == IntForm::holes ? mem[1 + 2 * static_cast<size_t>(i)]
                                  : mem[1 + static_cast<size_t>(i)];
  }
  bool holes_intact() const {
    if (mem.front() != kHole || mem.back() != kHole) return false;
    if (form == IntForm::holes)
      for (int i = 0; i < n; ++i)
        if (mem[2 + 2 * static_cast<size_t>(i)] != kHole) return false;
    return true;
  }
};

IntForm form_of(int rank, int variant) { return static_cast<IntForm>((rank + variant) % 3); }

// PAPCOLL_TEST_TRACE=1: rank 0 names each case before running it (finding a hang).
void trace(const std::string& what) {
  static const bool on = std::getenv("PAPCOLL_TEST_TRACE") != nullptr;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (on && rank == 0) std::fprintf(stderr, "case: %s\n", what.c_str());
}

papcoll_options with(const std::string& algo) {
  papcoll_options o;
  papcoll_options_init(&o);
  o.algorithm = algo.c_str();
  return o;
}

void bcast_ints(Checker& chk, const std::string& algo, int n, int variant, uint64_t seed) {
  const int rank = chk.rank(), root = (variant + 1) % chk.size();
  // The root always sends plain ints; the others receive in their own form.
  const IntForm f = rank == root ? IntForm::plain : form_of(rank, variant);
  IntBuffer b(f, n, 0);
  if (rank == root)
    for (int i = 0; i < n; ++i) b.at(i) = ival(seed, i);
  papcoll_options o = with(algo);
  const std::string what = "bcast " + algo + " n=" + std::to_string(n) + " " + form_name(f);
  trace(what);
  if (!chk.expect_success(papcoll_bcast(b.data(), b.count, b.type, root, MPI_COMM_WORLD, &o), what))
    return;
  int bad = -1;
  for (int i = 0; i < n && bad < 0; ++i)
    if (b.at(i) != ival(seed, i)) bad = i;
  chk.expect(bad < 0 && b.holes_intact(),
             what + (bad >= 0 ? ": element " + std::to_string(bad) + " wrong" : ": hole written"));
}

// A struct of 4 ints and 8 doubles: packed (doubles at 16, extent 80) or with holes (doubles at
// 24, extent 96). Same type signature.
struct Mixed {
  MPI_Datatype type;
  MPI_Aint extent;
  MPI_Aint dbl_at;
  explicit Mixed(bool holes) {
    dbl_at = holes ? 24 : 16;
    extent = holes ? 96 : 80;
    int lens[2] = {4, 8};
    MPI_Aint displs[2] = {0, dbl_at};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Datatype s;
    MPI_Type_create_struct(2, lens, displs, types, &s);
    MPI_Type_create_resized(s, 0, extent, &type);
    MPI_Type_free(&s);
    MPI_Type_commit(&type);
  }
  ~Mixed() { MPI_Type_free(&type); }
  int* ints(std::vector<char>& m, int64_t e) const {
    return reinterpret_cast<int*>(m.data() + e * extent);
  }
  double* dbls(std::vector<char>& m, int64_t e) const {
    return reinterpret_cast<double*>(m.data() + e * extent + dbl_at);
  }
};

void fill_mixed(const Mixed& t, std::vector<char>& m, int64_t elems, uint64_t seed) {
  for (int64_t e = 0; e < elems; ++e) {
    for (int k = 0; k < 4; ++k) t.ints(m, e)[k] = ival(seed, 12 * e + k);
    for (int k = 0; k < 8; ++k) t.dbls(m, e)[k] = ival(seed, 12 * e + 4 + k) * 0.5;
  }
}

// Data right and every byte outside the data still 0x5A.
bool check_mixed(const Mixed& t, std::vector<char>& m, int64_t elems, uint64_t seed) {
  std::vector<char> want(m.size(), 0x5A);
  fill_mixed(t, want, elems, seed);
  return want == m;
}

void bcast_mixed(Checker& chk, const std::string& algo, int elems, uint64_t seed) {
  const int rank = chk.rank(), root = chk.size() - 1;
  const bool holes = rank % 2 == 1;
  Mixed t(holes);
  std::vector<char> m(static_cast<size_t>(elems) * static_cast<size_t>(t.extent), 0x5A);
  if (rank == root) fill_mixed(t, m, elems, seed);
  papcoll_options o = with(algo);
  const std::string what = "bcast mixed " + algo + " elems=" + std::to_string(elems);
  trace(what);
  if (!chk.expect_success(papcoll_bcast(m.data(), elems, t.type, root, MPI_COMM_WORLD, &o), what))
    return;
  chk.expect(check_mixed(t, m, elems, seed), what + ": wrong data or a hole written");
}

// Portion o has base * (o + 1) ints (a multiple of 4); each rank receives with its own recvtype:
// MPI_INT, contiguous(4, MPI_INT) (counts / 4), or a vector with holes, and sends plain ints.
void allgatherv_ints(Checker& chk, const std::string& algo, int base, int variant, uint64_t seed) {
  const int p = chk.size(), rank = chk.rank();
  const IntForm f = form_of(rank, variant);
  std::vector<int> ints(static_cast<size_t>(p)), idispl(static_cast<size_t>(p));
  int total = 0;
  for (int o = 0; o < p; ++o) {
    ints[o] = 4 * base * ((o + variant) % 3 == 0 ? 0 : o + 1);
    idispl[o] = total;
    total += ints[o];
  }
  std::vector<int> mine(static_cast<size_t>(ints[rank]));
  for (int i = 0; i < ints[rank]; ++i) mine[i] = ival(seed + rank, i);
  std::vector<int> counts(static_cast<size_t>(p)), displs(static_cast<size_t>(p));
  std::vector<int> mem;
  MPI_Datatype rt = MPI_INT, v = MPI_DATATYPE_NULL;
  if (f == IntForm::plain) {
    mem.assign(static_cast<size_t>(total), kHole);
    counts = ints;
    displs = idispl;
  } else if (f == IntForm::contiguous) {
    MPI_Type_contiguous(4, MPI_INT, &rt);
    MPI_Type_commit(&rt);
    mem.assign(static_cast<size_t>(total), kHole);
    for (int o = 0; o < p; ++o) {
      counts[o] = ints[o] / 4;
      displs[o] = idispl[o] / 4;
    }
  } else {
    MPI_Type_vector(1, 1, 2, MPI_INT, &v);
    MPI_Type_create_resized(v, 0, 2 * sizeof(int), &rt);
    MPI_Type_commit(&rt);
    mem.assign(2 * static_cast<size_t>(total), kHole);
    counts = ints;
    displs = idispl;
  }
  papcoll_options o = with(algo);
  const std::string what = "allgatherv " + algo + " base=" + std::to_string(base) + " " +
                           form_name(f);
  trace(what);
  const int rc = papcoll_allgatherv(mine.data(), ints[rank], MPI_INT, mem.data(), counts.data(),
                                    displs.data(), rt, MPI_COMM_WORLD, &o);
  if (rt != MPI_INT) MPI_Type_free(&rt);
  if (v != MPI_DATATYPE_NULL) MPI_Type_free(&v);
  if (!chk.expect_success(rc, what)) return;
  bool ok = true;
  for (int q = 0; q < p && ok; ++q)
    for (int i = 0; i < ints[q] && ok; ++i) {
      const size_t at = static_cast<size_t>(idispl[q] + i);
      ok = (f == IntForm::holes ? mem[2 * at] : mem[at]) == ival(seed + q, i) &&
           (f != IntForm::holes || mem[2 * at + 1] == kHole);
    }
  chk.expect(ok, what + ": wrong data or a hole written");
}

// allreduce and reduce: MPI_SUM over n ints, each rank in its own form. MPI requires the same
// count and datatype on every rank of a reduction, and Open MPI's own collective refuses
// predefined ops on derived types, so "native" and "auto" (which may run it) get plain ints
// everywhere; papcoll's schedules run in MPI_INT units whatever the form.
void reduction_ints(Checker& chk, bool all, const std::string& algo, int n, int variant,
                    uint64_t seed) {
  const int p = chk.size(), rank = chk.rank(), root = variant % p;
  const bool mpi_may_run = algo == "native" || algo == "auto";
  const IntForm f = mpi_may_run ? IntForm::plain : form_of(rank, variant);
  IntBuffer send(f, n, 0), recv(f, n, 0);
  for (int i = 0; i < n; ++i) send.at(i) = ival(seed + rank, i);
  papcoll_options o = with(algo);
  const std::string what = std::string(all ? "allreduce " : "reduce ") + algo +
                           " n=" + std::to_string(n) + " " + form_name(f);
  trace(what);
  const int rc = all ? papcoll_allreduce(send.data(), recv.data(), send.count, send.type, MPI_SUM,
                                         MPI_COMM_WORLD, &o)
                     : papcoll_reduce(send.data(), recv.data(), send.count, send.type, MPI_SUM,
                                      root, MPI_COMM_WORLD, &o);
  if (!chk.expect_success(rc, what)) return;
  if (!all && rank != root) {
    chk.expect(recv.holes_intact(), what + ": recvbuf written off the root");
    return;
  }
  int bad = -1;
  for (int i = 0; i < n && bad < 0; ++i) {
    int want = 0;
    for (int q = 0; q < p; ++q) want += ival(seed + q, i);
    if (recv.at(i) != want) bad = i;
  }
  chk.expect(bad < 0 && recv.holes_intact() && send.holes_intact(),
             what + (bad >= 0 ? ": element " + std::to_string(bad) + " wrong" : ": hole written"));
}

// scatterv and gatherv: the root's side in contiguous(4, MPI_INT), the others in MPI_INT.
void scatter_gather_ints(Checker& chk, bool scatter, const std::string& algo, int base,
                         uint64_t seed) {
  const int p = chk.size(), rank = chk.rank(), root = p / 2;
  MPI_Datatype four;
  MPI_Type_contiguous(4, MPI_INT, &four);
  MPI_Type_commit(&four);
  std::vector<int> counts(static_cast<size_t>(p)), displs(static_cast<size_t>(p));
  int total = 0;
  for (int o = 0; o < p; ++o) {
    counts[o] = base * (o % 3);
    displs[o] = total;
    total += counts[o];
  }
  std::vector<int> all(4 * static_cast<size_t>(total), kHole);
  std::vector<int> mine(4 * static_cast<size_t>(counts[rank]), kHole);
  papcoll_options o = with(algo);
  const std::string what = std::string(scatter ? "scatterv " : "gatherv ") + algo +
                           " base=" + std::to_string(base);
  trace(what);
  int rc;
  if (scatter) {
    if (rank == root)
      for (size_t i = 0; i < all.size(); ++i) all[i] = ival(seed, static_cast<int64_t>(i));
    rc = papcoll_scatterv(all.data(), counts.data(), displs.data(), four, mine.data(),
                          4 * counts[rank], MPI_INT, root, MPI_COMM_WORLD, &o);
  } else {
    for (size_t i = 0; i < mine.size(); ++i)
      mine[i] = ival(seed, 4 * static_cast<int64_t>(displs[rank]) + static_cast<int64_t>(i));
    rc = papcoll_gatherv(mine.data(), 4 * counts[rank], MPI_INT, all.data(), counts.data(),
                         displs.data(), four, root, MPI_COMM_WORLD, &o);
  }
  MPI_Type_free(&four);
  if (!chk.expect_success(rc, what)) return;
  bool ok = true;
  if (scatter) {
    for (size_t i = 0; i < mine.size() && ok; ++i)
      ok = mine[i] == ival(seed, 4 * static_cast<int64_t>(displs[rank]) + static_cast<int64_t>(i));
  } else if (rank == root) {
    for (size_t i = 0; i < all.size() && ok; ++i)
      ok = all[i] == ival(seed, static_cast<int64_t>(i));
  }
  chk.expect(ok, what + ": wrong data");
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int status = 0;
  {
    Checker chk("test_signatures");
    uint64_t seed = 11;
    // 17 ints, the MPICH bcast test's counts, and 1 Mi ints (4 MiB).
    const int sizes[] = {1, 17, 50, 512, 65530, 1 << 20};
    for (const std::string& algo : algorithms("bcast")) {
      int variant = 0;
      for (int n : sizes) bcast_ints(chk, algo, n, variant++, ++seed);
      for (int elems : {1, 17, 4099, 50000}) bcast_mixed(chk, algo, elems, ++seed);
    }
    for (const std::string& algo : algorithms("allgatherv")) {
      int variant = 0;
      for (int base : {1, 5, 300, 70000}) allgatherv_ints(chk, algo, base, variant++, ++seed);
    }
    for (const char* op : {"allreduce", "reduce"})
      for (const std::string& algo : algorithms(op)) {
        int variant = 0;
        for (int n : {1, 17, 4099, 300000})
          reduction_ints(chk, std::strcmp(op, "allreduce") == 0, algo, n, variant++, ++seed);
      }
    for (bool scatter : {true, false})
      for (const std::string& algo : algorithms(scatter ? "scatterv" : "gatherv"))
        for (int base : {1, 1000, 100000}) scatter_gather_ints(chk, scatter, algo, base, ++seed);
    status = chk.finish();
  }
  MPI_Finalize();
  return status;
}
