// Shared by test_scatterv.cpp and test_gatherv.cpp: the algorithm list, portion shapes, strided
// displacements with gaps, and the link model files the tests write (rank 0 writes, everyone
// learns the path, a barrier orders the write before any use).
#pragma once

#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "mpi_check.hpp"
#include "papcoll/papcoll.h"

namespace papcoll_test {

inline std::vector<std::string> algorithms_of(const char* collective) {
  std::vector<std::string> names;
  std::stringstream list(papcoll_algorithms(collective));
  for (std::string n; std::getline(list, n, ',');) names.push_back(n);
  return names;
}

inline int portion_value(uint64_t seed, int owner, int i) {
  return static_cast<int>(mix(seed, static_cast<uint64_t>(owner), static_cast<uint64_t>(i)) %
                          1000003);
}

// random: about a third zeros, the rest 0..2*base; one: a single rank (by seed) has base*p;
// equal: base each; zero: nothing at all.
enum class Portions { random, one, equal, zero };
inline const char* portions_name(Portions s) {
  static const char* n[] = {"random", "one", "equal", "zero"};
  return n[static_cast<int>(s)];
}

inline std::vector<int> counts_of(Portions s, int p, int base, uint64_t seed) {
  std::vector<int> c(static_cast<size_t>(p), 0);
  for (int i = 0; i < p; ++i) {
    const auto u = static_cast<uint64_t>(i);
    switch (s) {
      case Portions::random:
        c[i] = mix(seed, 5, u) % 3 == 0
                   ? 0
                   : static_cast<int>(mix(seed, 6, u) % static_cast<uint64_t>(2 * base + 1));
        break;
      case Portions::one:
        c[i] = i == static_cast<int>(seed % static_cast<uint64_t>(p)) ? base * p : 0;
        break;
      case Portions::equal: c[i] = base; break;
      case Portions::zero: break;
    }
  }
  return c;
}

// Packed in rank order, or in reverse rank order with a gap of 3 elements before each portion
// (and after the last). *total: elements the buffer needs.
inline std::vector<int> displs_of(const std::vector<int>& counts, bool gaps, int* total) {
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

// Writes `text` to a fresh file on rank 0 and returns its path on every rank (after a barrier, so
// no rank reads it before it exists). The caller removes it with remove_model_file.
inline std::string shared_model_file(const std::string& text) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char path[64] = "/tmp/papcoll-test-model-XXXXXX";
  if (rank == 0) {
    const int fd = mkstemp(path);
    if (fd >= 0) {
      const ssize_t n = write(fd, text.data(), text.size());
      (void)n;
      close(fd);
    }
  }
  MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  return path;
}

inline void remove_model_file(const std::string& path) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) std::remove(path.c_str());
}

// A heterogeneous model: every ordered pair its own alpha in [1e-6, 1e-4) s and beta in
// [1e-10, 1e-8) s/byte, from the seed.
inline std::string heterogeneous_model_text(int p, uint64_t seed) {
  std::ostringstream out;
  out.precision(17);
  out << "papcoll-model 1\n# written by the MPI tests\np " << p << "\n";
  for (int i = 0; i < p; ++i)
    for (int j = 0; j < p; ++j) {
      if (i == j) continue;
      const auto link = static_cast<uint64_t>(i * p + j);
      const double u = static_cast<double>(mix(seed, 1, link) % 1000) / 1000;
      const double v = static_cast<double>(mix(seed, 2, link) % 1000) / 1000;
      out << i << ' ' << j << ' ' << 1e-6 * (1 + 99 * u) << ' ' << 1e-10 * (1 + 99 * v) << '\n';
    }
  out << "end\n";
  return out.str();
}

// How a case gets its links: none (the default alpha and beta), other Hockney parameters in the
// options, or a model file.
struct Links {
  const char* name;
  double alpha = 0, beta = 0;
  std::string model_file;
};

// One side's datatype, described in ints: an element holds `ints` ints, one after the other,
// and takes `stride` ints of memory (the rest are holes, which must stay untouched).
struct Side {
  MPI_Datatype type;
  int ints;
  int stride;
  const char* name;
  // Where int j of a portion that starts at element `displ` lives, in ints from the buffer start.
  size_t at(int displ, int j) const {
    return static_cast<size_t>(displ + j / ints) * static_cast<size_t>(stride) +
           static_cast<size_t>(j % ints);
  }
};

// MPI_INT; "pair": 2 contiguous ints (dense); "strided": 1 int every 2 (not dense: packed through
// MPI_Pack).
class Sides {
 public:
  Sides() {
    MPI_Type_contiguous(2, MPI_INT, &pair_);
    MPI_Type_commit(&pair_);
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &strided_);
    MPI_Type_commit(&strided_);
  }
  ~Sides() {
    MPI_Type_free(&pair_);
    MPI_Type_free(&strided_);
  }
  Side integer() const { return {MPI_INT, 1, 1, "int"}; }
  Side pair() const { return {pair_, 2, 2, "pair"}; }
  Side strided() const { return {strided_, 1, 2, "strided"}; }

 private:
  MPI_Datatype pair_ = MPI_DATATYPE_NULL, strided_ = MPI_DATATYPE_NULL;
};

// A buffer of elements of `side`, displs/counts in elements, every int a sentinel except the
// portions' data, plus a guard element at the end. With fill, portion o holds its values.
inline std::vector<int> portions_buffer(const Side& side, const std::vector<int>& counts,
                                        const std::vector<int>& displs, int total_elems,
                                        uint64_t seed, bool fill, int sentinel) {
  std::vector<int> buf(static_cast<size_t>(total_elems + 1) * static_cast<size_t>(side.stride),
                       sentinel);
  if (fill)
    for (size_t o = 0; o < counts.size(); ++o)
      for (int j = 0; j < counts[o] * side.ints; ++j)
        buf[side.at(displs[o], j)] = portion_value(seed, static_cast<int>(o), j);
  return buf;
}

}  // namespace papcoll_test
