// A plain MPI program (no papcoll header): checks what the MPI standard promises for
// MPI_Allreduce, MPI_Reduce, MPI_Bcast, MPI_Allgatherv, MPI_Scatterv and MPI_Gatherv on
// MPI_COMM_WORLD, a split communicator, a duplicate and MPI_COMM_SELF: predefined and derived
// datatypes (a contiguous type with a user op, a struct with padding, a contiguous type against
// its elements), MPI_IN_PLACE, zero counts, every root, a non-commutative user op, displacements
// with gaps, and the arguments MPI reads at the root only passed as NULL elsewhere. Every rank
// computes every rank's input, so results are checked exactly (integers; doubles only with exactly
// representable sums). Run under LD_PRELOAD=libpapcoll-intercept.so with each algorithm forced
// (run_conformance.py); it must pass exactly as it does without the library. Exit 0 when every
// check passed on every rank.
#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

namespace {

int g_failed = 0;
int g_checks = 0;

void expect(bool ok, const std::string& what, MPI_Comm comm) {
  ++g_checks;
  if (ok) return;
  ++g_failed;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::fprintf(stderr, "conformance FAIL (rank %d of the communicator): %s\n", rank, what.c_str());
}

int value(uint64_t seed, int rank, int i) {
  uint64_t z = seed * 0x9E3779B97F4A7C15ULL + static_cast<uint64_t>(rank) * 0xBF58476D1CE4E5B9ULL +
               static_cast<uint64_t>(i) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  z *= 0xD6E8FEB86659FD93ULL;
  z ^= z >> 32;
  return static_cast<int>(z % 2001) - 1000;
}

// 2x2 integer matrix product: associative, not commutative.
void matmul(void* in, void* inout, int* len, MPI_Datatype*) {
  auto* a = static_cast<int*>(in);
  auto* b = static_cast<int*>(inout);
  for (int k = 0; k < *len; ++k, a += 4, b += 4) {
    const int c0 = a[0] * b[0] + a[1] * b[2], c1 = a[0] * b[1] + a[1] * b[3];
    const int c2 = a[2] * b[0] + a[3] * b[2], c3 = a[2] * b[1] + a[3] * b[3];
    b[0] = c0;
    b[1] = c1;
    b[2] = c2;
    b[3] = c3;
  }
}

void allreduce_checks(MPI_Comm comm, const char* name, uint64_t seed) {
  int rank, p;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  for (int count : {0, 1, 7, 1000, 65537}) {
    std::vector<int> in(static_cast<size_t>(count)), out(static_cast<size_t>(count), -7);
    for (int i = 0; i < count; ++i) in[i] = value(seed, rank, i);
    const std::vector<int> in_before = in;
    for (MPI_Op op : {MPI_SUM, MPI_MAX, MPI_BXOR}) {
      MPI_Allreduce(in.data(), out.data(), count, MPI_INT, op, comm);
      bool ok = in == in_before;
      for (int i = 0; i < count && ok; ++i) {
        int want = value(seed, 0, i);
        for (int r = 1; r < p; ++r) {
          const int v = value(seed, r, i);
          want = op == MPI_SUM ? want + v : op == MPI_MAX ? std::max(want, v) : want ^ v;
        }
        ok = out[i] == want;
      }
      expect(ok, std::string(name) + ": MPI_Allreduce int count " + std::to_string(count), comm);
    }
    std::vector<int> inplace = in;
    MPI_Allreduce(MPI_IN_PLACE, inplace.data(), count, MPI_INT, MPI_SUM, comm);
    bool ok = true;
    for (int i = 0; i < count && ok; ++i) {
      int want = 0;
      for (int r = 0; r < p; ++r) want += value(seed, r, i);
      ok = inplace[i] == want;
    }
    expect(ok, std::string(name) + ": MPI_Allreduce in place count " + std::to_string(count), comm);
  }
  // Doubles whose sums are exact (small integers). (Predefined ops apply to predefined types
  // only, so derived types are exercised by the user op below and by MPI_Bcast.)
  const int n = 501;
  std::vector<double> din(n), dout(n, -3.0);
  for (int i = 0; i < n; ++i) din[i] = value(seed + 1, rank, i);
  MPI_Allreduce(din.data(), dout.data(), n, MPI_DOUBLE, MPI_SUM, comm);
  bool ok = true;
  for (int i = 0; i < n && ok; ++i) {
    double want = 0;
    for (int r = 0; r < p; ++r) want += value(seed + 1, r, i);
    ok = dout[i] == want;
  }
  expect(ok, std::string(name) + ": MPI_Allreduce double", comm);
  // Non-commutative: the product in rank order.
  MPI_Op mat;
  MPI_Op_create(matmul, 0, &mat);
  MPI_Datatype m2;
  MPI_Type_contiguous(4, MPI_INT, &m2);
  MPI_Type_commit(&m2);
  const int mats = 3;
  std::vector<int> a(4 * mats), prod(4 * mats);
  for (int k = 0; k < mats; ++k) {
    const int s = (rank + k) % 3;
    a[4 * k + 0] = 1;
    a[4 * k + 1] = s;
    a[4 * k + 2] = k % 2;
    a[4 * k + 3] = 1 + (rank % 2);
  }
  MPI_Allreduce(a.data(), prod.data(), mats, m2, mat, comm);
  ok = true;
  for (int k = 0; k < mats && ok; ++k) {
    long w[4] = {1, 0, 0, 1};
    for (int r = 0; r < p; ++r) {
      const long b[4] = {1, (r + k) % 3, k % 2, 1 + (r % 2)};
      const long c[4] = {w[0] * b[0] + w[1] * b[2], w[0] * b[1] + w[1] * b[3],
                         w[2] * b[0] + w[3] * b[2], w[2] * b[1] + w[3] * b[3]};
      std::memcpy(w, c, sizeof w);
    }
    for (int j = 0; j < 4; ++j) ok = ok && prod[4 * k + j] == static_cast<int>(w[j]);
  }
  expect(ok, std::string(name) + ": MPI_Allreduce non-commutative user op", comm);
  MPI_Type_free(&m2);
  MPI_Op_free(&mat);
}

void reduce_checks(MPI_Comm comm, const char* name, uint64_t seed) {
  int rank, p;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  for (int root = 0; root < p; ++root)
    for (int count : {0, 3, 4099}) {
      std::vector<int> in(static_cast<size_t>(count)), out(static_cast<size_t>(count), -7);
      for (int i = 0; i < count; ++i) in[i] = value(seed + root, rank, i);
      const bool in_place = rank == root && count % 2 == 1;
      if (in_place) out = in;
      MPI_Reduce(in_place ? MPI_IN_PLACE : in.data(), out.data(), count, MPI_INT, MPI_SUM, root,
                 comm);
      bool ok = true;
      for (int i = 0; i < count && ok; ++i) {
        int want = 0;
        for (int r = 0; r < p; ++r) want += value(seed + root, r, i);
        ok = rank == root ? out[i] == want : out[i] == -7;
      }
      expect(ok,
             std::string(name) + ": MPI_Reduce root " + std::to_string(root) + " count " +
                 std::to_string(count) + (in_place ? " in place" : ""),
             comm);
    }
}

void bcast_checks(MPI_Comm comm, const char* name, uint64_t seed) {
  int rank, p;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  for (int root = 0; root < p; ++root)
    for (int count : {0, 1, 5, 100003}) {
      std::vector<int> buf(static_cast<size_t>(count), -5);
      if (rank == root)
        for (int i = 0; i < count; ++i) buf[i] = value(seed + root, root, i);
      MPI_Bcast(buf.data(), count, MPI_INT, root, comm);
      bool ok = true;
      for (int i = 0; i < count && ok; ++i) ok = buf[i] == value(seed + root, root, i);
      expect(ok,
             std::string(name) + ": MPI_Bcast root " + std::to_string(root) + " count " +
                 std::to_string(count),
             comm);
    }
  // A struct type {int, double} with padding: the holes must not be written.
  struct Rec {
    int a;
    double b;
  };
  MPI_Datatype rec;
  const int lens[2] = {1, 1};
  const MPI_Aint disp[2] = {offsetof(Rec, a), offsetof(Rec, b)};
  const MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
  MPI_Type_create_struct(2, lens, disp, types, &rec);
  MPI_Type_commit(&rec);
  std::vector<Rec> recs(77);
  std::memset(recs.data(), 0x3C, recs.size() * sizeof(Rec));
  const std::vector<Rec> before = recs;
  if (rank == 0)
    for (size_t i = 0; i < recs.size(); ++i) {
      recs[i].a = static_cast<int>(i);
      recs[i].b = 0.5 * i;
    }
  MPI_Bcast(recs.data(), static_cast<int>(recs.size()), rec, 0, comm);
  bool ok = true;
  for (size_t i = 0; i < recs.size() && ok; ++i) {
    ok = recs[i].a == static_cast<int>(i) && recs[i].b == 0.5 * i;
    if (rank != 0)  // the padding bytes between a and b
      ok = ok && std::memcmp(reinterpret_cast<const char*>(&recs[i]) + sizeof(int),
                             reinterpret_cast<const char*>(&before[i]) + sizeof(int),
                             offsetof(Rec, b) - sizeof(int)) == 0;
  }
  expect(ok, std::string(name) + ": MPI_Bcast struct type", comm);
  MPI_Type_free(&rec);
}

void allgatherv_checks(MPI_Comm comm, const char* name, uint64_t seed) {
  int rank, p;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  for (int shape = 0; shape < 4; ++shape) {
    std::vector<int> counts(static_cast<size_t>(p)), displs(static_cast<size_t>(p));
    for (int r = 0; r < p; ++r)
      counts[r] = shape == 0   ? 10
                  : shape == 1 ? 1000 * r
                  : shape == 2 ? (r == p - 1 ? 30001 : 0)
                               : (value(seed, r, 99) + 1000) % 7;
    int at = 0;
    for (int r = p - 1; r >= 0; --r) {  // reverse order with a gap of 2
      at += 2;
      displs[r] = at;
      at += counts[r];
    }
    std::vector<int> mine(static_cast<size_t>(counts[rank]));
    for (int i = 0; i < counts[rank]; ++i) mine[i] = value(seed + shape, rank, i);
    for (int in_place = 0; in_place < 2; ++in_place) {
      std::vector<int> all(static_cast<size_t>(at) + 2, -9);
      if (in_place) std::copy(mine.begin(), mine.end(), all.begin() + displs[rank]);
      MPI_Allgatherv(in_place ? MPI_IN_PLACE : mine.data(), counts[rank], MPI_INT, all.data(),
                     counts.data(), displs.data(), MPI_INT, comm);
      std::vector<int> want(all.size(), -9);
      for (int r = 0; r < p; ++r)
        for (int i = 0; i < counts[r]; ++i)
          want[static_cast<size_t>(displs[r] + i)] = value(seed + shape, r, i);
      expect(all == want,
             std::string(name) + ": MPI_Allgatherv shape " + std::to_string(shape) +
                 (in_place ? " in place" : ""),
             comm);
    }
  }
}

// Scatterv/gatherv portions: random counts (zeros included; in shape 2 all zero, in shape 3 one
// large portion), displacements in reverse rank order with gaps of 3.
struct Portions {
  std::vector<int> counts, displs;
  int extent = 0;  // elements the root's buffer needs
};

Portions portions(int p, int shape, uint64_t seed) {
  Portions v;
  v.counts.resize(static_cast<size_t>(p));
  v.displs.resize(static_cast<size_t>(p));
  for (int r = 0; r < p; ++r) {
    const int u = value(seed, r, 5) + 1000;  // 0..2000
    v.counts[r] = shape == 2   ? 0
                  : shape == 3 ? (r == p / 2 ? 20011 : u % 3)
                               : (u % 4 == 0 ? 0 : u % 97);
  }
  int at = 0;
  for (int r = p - 1; r >= 0; --r) {
    at += 3;
    v.displs[r] = at;
    at += v.counts[r];
  }
  v.extent = at + 3;
  return v;
}

void scatterv_checks(MPI_Comm comm, const char* name, uint64_t seed) {
  int rank, p;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  for (int root = 0; root < p; ++root)
    for (int shape = 0; shape < 4; ++shape) {
      const uint64_t sd = seed + 10 * root + shape;
      const Portions v = portions(p, shape, sd);
      const bool is_root = rank == root;
      const bool in_place = is_root && (root + shape) % 2 == 1;
      std::vector<int> all;
      if (is_root) {
        all.assign(static_cast<size_t>(v.extent), -1);
        for (int r = 0; r < p; ++r)
          for (int i = 0; i < v.counts[r]; ++i)
            all[static_cast<size_t>(v.displs[r] + i)] = value(sd, r, i);
      }
      const std::vector<int> all_before = all;
      const int mine = v.counts[rank];
      std::vector<int> out(static_cast<size_t>(mine) + 2, -9);
      // MPI reads sendbuf, sendcounts, displs and sendtype at the root only: NULL elsewhere.
      MPI_Scatterv(is_root ? all.data() : nullptr, is_root ? v.counts.data() : nullptr,
                   is_root ? v.displs.data() : nullptr, MPI_INT,
                   in_place ? MPI_IN_PLACE : out.data(), mine, MPI_INT, root, comm);
      bool ok = all == all_before;
      if (!in_place)
        for (int i = 0; i < mine + 2 && ok; ++i)
          ok = out[i] == (i < mine ? value(sd, rank, i) : -9);
      expect(ok,
             std::string(name) + ": MPI_Scatterv root " + std::to_string(root) + " shape " +
                 std::to_string(shape) + (in_place ? " in place" : ""),
             comm);
    }
  // Derived types: the root sends pairs (a contiguous type of 2 ints), every rank receives ints.
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  const int root = p - 1;
  const Portions v = portions(p, 0, seed + 7);
  std::vector<int> all;
  if (rank == root) {
    all.assign(2 * static_cast<size_t>(v.extent), -1);
    for (int r = 0; r < p; ++r)
      for (int i = 0; i < 2 * v.counts[r]; ++i)
        all[static_cast<size_t>(2 * v.displs[r] + i)] = value(seed + 7, r, i);
  }
  std::vector<int> out(2 * static_cast<size_t>(v.counts[rank]) + 1, -9);
  MPI_Scatterv(all.data(), v.counts.data(), v.displs.data(), pair, out.data(), 2 * v.counts[rank],
               MPI_INT, root, comm);
  bool ok = out.back() == -9;
  for (int i = 0; i < 2 * v.counts[rank] && ok; ++i) ok = out[i] == value(seed + 7, rank, i);
  expect(ok, std::string(name) + ": MPI_Scatterv pairs to ints", comm);
  MPI_Type_free(&pair);
  // A struct type with padding on both sides: the holes of the receive buffer stay untouched.
  struct Rec {
    int a;
    double b;
  };
  MPI_Datatype rec;
  const int lens[2] = {1, 1};
  const MPI_Aint disp[2] = {offsetof(Rec, a), offsetof(Rec, b)};
  const MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
  MPI_Type_create_struct(2, lens, disp, types, &rec);
  MPI_Type_commit(&rec);
  std::vector<Rec> recs;
  if (rank == 0) {
    recs.resize(static_cast<size_t>(v.extent));
    for (int r = 0; r < p; ++r)
      for (int i = 0; i < v.counts[r]; ++i)
        recs[static_cast<size_t>(v.displs[r] + i)] = Rec{r, 0.5 * i};
  }
  std::vector<Rec> got(static_cast<size_t>(v.counts[rank]));
  std::memset(got.data(), 0x3C, got.size() * sizeof(Rec));
  const std::vector<Rec> got_before = got;
  MPI_Scatterv(recs.data(), v.counts.data(), v.displs.data(), rec, got.data(), v.counts[rank], rec,
               0, comm);
  ok = true;
  for (size_t i = 0; i < got.size() && ok; ++i)
    ok = got[i].a == rank && got[i].b == 0.5 * static_cast<double>(i) &&
         std::memcmp(reinterpret_cast<const char*>(&got[i]) + sizeof(int),
                     reinterpret_cast<const char*>(&got_before[i]) + sizeof(int),
                     offsetof(Rec, b) - sizeof(int)) == 0;
  expect(ok, std::string(name) + ": MPI_Scatterv struct type", comm);
  MPI_Type_free(&rec);
}

void gatherv_checks(MPI_Comm comm, const char* name, uint64_t seed) {
  int rank, p;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  for (int root = 0; root < p; ++root)
    for (int shape = 0; shape < 4; ++shape) {
      const uint64_t sd = seed + 10 * root + shape;
      const Portions v = portions(p, shape, sd);
      const bool is_root = rank == root;
      const bool in_place = is_root && (root + shape) % 2 == 1;
      const int n = v.counts[rank];
      std::vector<int> mine(static_cast<size_t>(n));
      for (int i = 0; i < n; ++i) mine[i] = value(sd, rank, i);
      const std::vector<int> mine_before = mine;
      std::vector<int> all;
      if (is_root) {
        all.assign(static_cast<size_t>(v.extent), -9);
        if (in_place) std::copy(mine.begin(), mine.end(), all.begin() + v.displs[root]);
      }
      // MPI reads recvbuf, recvcounts, displs and recvtype at the root only: NULL elsewhere.
      MPI_Gatherv(in_place ? MPI_IN_PLACE : mine.data(), n, MPI_INT, is_root ? all.data() : nullptr,
                  is_root ? v.counts.data() : nullptr, is_root ? v.displs.data() : nullptr, MPI_INT,
                  root, comm);
      bool ok = mine == mine_before;
      if (is_root) {
        std::vector<int> want(static_cast<size_t>(v.extent), -9);
        for (int r = 0; r < p; ++r)
          for (int i = 0; i < v.counts[r]; ++i)
            want[static_cast<size_t>(v.displs[r] + i)] = value(sd, r, i);
        ok = ok && all == want;
      }
      expect(ok,
             std::string(name) + ": MPI_Gatherv root " + std::to_string(root) + " shape " +
                 std::to_string(shape) + (in_place ? " in place" : ""),
             comm);
    }
  // Derived types: every rank sends ints, the root receives pairs (a contiguous type of 2 ints).
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  const int root = p / 2;
  const Portions v = portions(p, 1, seed + 7);
  std::vector<int> mine(2 * static_cast<size_t>(v.counts[rank]));
  for (size_t i = 0; i < mine.size(); ++i) mine[i] = value(seed + 7, rank, static_cast<int>(i));
  std::vector<int> all(rank == root ? 2 * static_cast<size_t>(v.extent) : 0, -9);
  MPI_Gatherv(mine.data(), 2 * v.counts[rank], MPI_INT, all.data(), v.counts.data(),
              v.displs.data(), pair, root, comm);
  bool ok = true;
  if (rank == root) {
    std::vector<int> want(all.size(), -9);
    for (int r = 0; r < p; ++r)
      for (int i = 0; i < 2 * v.counts[r]; ++i)
        want[static_cast<size_t>(2 * v.displs[r] + i)] = value(seed + 7, r, i);
    ok = all == want;
  }
  expect(ok, std::string(name) + ": MPI_Gatherv ints to pairs", comm);
  MPI_Type_free(&pair);
  // A struct type with padding: the holes of the root's buffer stay untouched.
  struct Rec {
    int a;
    double b;
  };
  MPI_Datatype rec;
  const int lens[2] = {1, 1};
  const MPI_Aint disp[2] = {offsetof(Rec, a), offsetof(Rec, b)};
  const MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
  MPI_Type_create_struct(2, lens, disp, types, &rec);
  MPI_Type_commit(&rec);
  std::vector<Rec> send(static_cast<size_t>(v.counts[rank]));
  for (size_t i = 0; i < send.size(); ++i) send[i] = Rec{rank, 0.25 * static_cast<double>(i)};
  std::vector<Rec> recs(rank == 0 ? static_cast<size_t>(v.extent) : 0);
  std::memset(recs.data(), 0x3C, recs.size() * sizeof(Rec));
  const std::vector<Rec> before = recs;
  MPI_Gatherv(send.data(), v.counts[rank], rec, recs.data(), v.counts.data(), v.displs.data(), rec,
              0, comm);
  ok = true;
  if (rank == 0) {
    std::vector<char> expected(recs.size() * sizeof(Rec));
    std::memcpy(expected.data(), before.data(), expected.size());
    for (int r = 0; r < p; ++r)
      for (int i = 0; i < v.counts[r]; ++i) {
        char* at = expected.data() + static_cast<size_t>(v.displs[r] + i) * sizeof(Rec);
        const int a = r;
        const double b = 0.25 * i;
        std::memcpy(at + offsetof(Rec, a), &a, sizeof a);
        std::memcpy(at + offsetof(Rec, b), &b, sizeof b);
      }
    ok = std::memcmp(expected.data(), recs.data(), expected.size()) == 0;
  }
  expect(ok, std::string(name) + ": MPI_Gatherv struct type", comm);
  MPI_Type_free(&rec);
}

void all_checks(MPI_Comm comm, const char* name, uint64_t seed) {
  allreduce_checks(comm, name, seed);
  reduce_checks(comm, name, seed + 100);
  bcast_checks(comm, name, seed + 200);
  allgatherv_checks(comm, name, seed + 300);
  scatterv_checks(comm, name, seed + 400);
  gatherv_checks(comm, name, seed + 500);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  all_checks(MPI_COMM_WORLD, "world", 1);
  MPI_Comm half, dup;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);  // reversed order inside each half
  all_checks(half, "split", 2);
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  all_checks(dup, "dup", 3);
  all_checks(MPI_COMM_SELF, "self", 4);
  MPI_Comm_free(&half);
  MPI_Comm_free(&dup);
  int failed = 0, checks = 0;
  MPI_Allreduce(&g_failed, &failed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&g_checks, &checks, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) std::printf("conformance: %d checks per rank, %d failures\n", checks, failed);
  MPI_Finalize();
  return failed == 0 ? 0 : 1;
}
