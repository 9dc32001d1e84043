// papcoll_allreduce beyond plain arrays of predefined types: derived and padded datatypes (holes
// must stay untouched), user ops, other communicators (split, MPI_COMM_SELF, created and freed in
// a loop), isolation from the application's own messages, and a hot loop over cached schedules.
#include <mpi.h>

#include <cstring>
#include <string>
#include <vector>

#include "mpi_check.hpp"
#include "papcoll/papcoll.h"

using papcoll_test::Checker;
using papcoll_test::mix;

namespace {

const char* const kAlgos[] = {"ring", "rabenseifner", "recursive-doubling", "linear", "slt", "prr"};

papcoll_options options(const char* algo, int blocks) {
  papcoll_options o;
  papcoll_options_init(&o);
  o.algorithm = algo;
  o.blocks = blocks;
  return o;
}

// Sums ints that sit at the start of each element, whatever the element's extent.
void strided_int_sum(void* in, void* inout, int* len, MPI_Datatype* type) {
  MPI_Aint lb, extent;
  MPI_Type_get_extent(*type, &lb, &extent);
  int ints = 0;
  MPI_Type_size(*type, &ints);
  ints /= static_cast<int>(sizeof(int));
  for (int k = 0; k < *len; ++k)
    for (int j = 0; j < ints; ++j) {
      int a, b;
      char* pin = static_cast<char*>(in) + k * extent + j * sizeof(int);
      char* pio = static_cast<char*>(inout) + k * extent + j * sizeof(int);
      std::memcpy(&a, pin, sizeof a);
      std::memcpy(&b, pio, sizeof b);
      b += a;
      std::memcpy(pio, &b, sizeof b);
    }
}

// A contiguous type of 3 ints, and MPI_INT resized to 8 bytes (4 data bytes, 4 bytes of hole),
// each with a commutative user op. Holes are filled with a sentinel that must survive.
void derived_types(Checker& chk, MPI_Op sum) {
  MPI_Datatype triple, padded_int;
  MPI_Type_contiguous(3, MPI_INT, &triple);
  MPI_Type_commit(&triple);
  MPI_Type_create_resized(MPI_INT, 0, 8, &padded_int);
  MPI_Type_commit(&padded_int);
  struct {
    const char* name;
    MPI_Datatype type;
    int ints_per_elem, bytes_per_elem;
  } types[] = {{"3 x int", triple, 3, 12}, {"int resized to 8", padded_int, 1, 8}};
  const int rank = chk.rank();
  for (const auto& t : types)
    for (const char* algo : kAlgos)
      for (int count : {5, 33})
        for (int blocks : {0, 3})
          for (bool in_place : {false, true}) {
            const size_t bytes = static_cast<size_t>(count) * t.bytes_per_elem;
            std::vector<unsigned char> send(bytes, 0xAB), want(bytes, 0xAB), got(bytes, 0xAB);
            for (int e = 0; e < count; ++e)
              for (int j = 0; j < t.ints_per_elem; ++j) {
                const int v = static_cast<int>(mix(rank, e, j) % 1000);
                std::memcpy(&send[e * t.bytes_per_elem + j * 4], &v, 4);
              }
            const std::vector<unsigned char> send_before = send;
            MPI_Allreduce(send.data(), want.data(), count, t.type, sum, MPI_COMM_WORLD);
            const papcoll_options o = options(algo, blocks);
            int rc;
            if (in_place) {
              got = send;
              rc = papcoll_allreduce(MPI_IN_PLACE, got.data(), count, t.type, sum, MPI_COMM_WORLD,
                                     &o);
            } else {
              rc = papcoll_allreduce(send.data(), got.data(), count, t.type, sum, MPI_COMM_WORLD,
                                     &o);
            }
            // `want` has the sentinel in every hole, so a byte-wise comparison also checks that
            // papcoll wrote nothing there.
            chk.expect(rc == PAPCOLL_SUCCESS && got == want && send == send_before,
                       std::string(t.name) + " " + algo + " count=" + std::to_string(count) +
                           " blocks=" + std::to_string(blocks) + (in_place ? " in-place" : "") +
                           ": rc " + std::to_string(rc) + " " + papcoll_last_error());
          }
  MPI_Type_free(&triple);
  MPI_Type_free(&padded_int);
}

// MPI_DOUBLE_INT is predefined but padded (12 data bytes, extent 16 on LP64).
void double_int_maxloc(Checker& chk) {
  struct DI {
    double v;
    int i;
  };
  const int rank = chk.rank();
  for (const char* algo : kAlgos) {
    constexpr int kCount = 29;
    std::vector<DI> send(kCount), want(kCount), got(kCount);
    for (int e = 0; e < kCount; ++e) send[e] = {static_cast<double>(mix(rank, e) % 97), rank};
    MPI_Allreduce(send.data(), want.data(), kCount, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
    const papcoll_options o = options(algo, 4);
    const int rc = papcoll_allreduce(send.data(), got.data(), kCount, MPI_DOUBLE_INT, MPI_MAXLOC,
                                     MPI_COMM_WORLD, &o);
    bool same = rc == PAPCOLL_SUCCESS;
    for (int e = 0; e < kCount && same; ++e) same = got[e].v == want[e].v && got[e].i == want[e].i;
    chk.expect(same, std::string("MPI_DOUBLE_INT/MPI_MAXLOC ") + algo + ": rc " +
                         std::to_string(rc) + " " + papcoll_last_error());
  }
}

// Sum over `comm` of rank-dependent ints, checked against MPI_Allreduce on the same comm.
void check_comm(Checker& chk, MPI_Comm comm, const char* algo, int count, const std::string& what) {
  int r = 0;
  MPI_Comm_rank(comm, &r);
  std::vector<int> send(static_cast<size_t>(count)), want(send.size()), got(send.size());
  for (int i = 0; i < count; ++i) send[i] = static_cast<int>(mix(r, i) % 100);
  MPI_Allreduce(send.data(), want.data(), count, MPI_INT, MPI_SUM, comm);
  const papcoll_options o = options(algo, 0);
  const int rc = papcoll_allreduce(send.data(), got.data(), count, MPI_INT, MPI_SUM, comm, &o);
  chk.expect(rc == PAPCOLL_SUCCESS && got == want,
             what + " " + algo + ": rc " + std::to_string(rc) + " " + papcoll_last_error());
}

void communicators(Checker& chk) {
  MPI_Comm split;
  MPI_Comm_split(MPI_COMM_WORLD, chk.rank() % 2, chk.rank(), &split);
  for (const char* algo : kAlgos) check_comm(chk, split, algo, 100, "split communicator");
  MPI_Comm_free(&split);
  for (const char* algo : kAlgos) check_comm(chk, MPI_COMM_SELF, algo, 10, "MPI_COMM_SELF");
  // Each new communicator gets its own private duplicate, freed with it.
  for (int k = 0; k < 20; ++k) {
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    check_comm(chk, c, kAlgos[k % 6], 50, "dup #" + std::to_string(k));
    MPI_Comm_free(&c);
  }
}

// A wildcard receive of the application, pending on the same communicator, must not catch any of
// papcoll's messages.
void isolation(Checker& chk) {
  const int rank = chk.rank(), p = chk.size();
  int app_msg = -1;
  MPI_Request req;
  MPI_Irecv(&app_msg, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req);
  for (const char* algo : kAlgos)
    check_comm(chk, MPI_COMM_WORLD, algo, 64, "with a pending app receive");
  int flag = 0;
  MPI_Status st;
  MPI_Test(&req, &flag, &st);
  chk.expect(!flag, "the application's wildcard receive caught a message from " +
                        std::to_string(flag ? st.MPI_SOURCE : -1) + " tag " +
                        std::to_string(flag ? st.MPI_TAG : -1) + " value " +
                        std::to_string(app_msg));
  MPI_Barrier(MPI_COMM_WORLD);  // every rank has tested before any sends the real message
  const int mine = 1000 + rank;
  MPI_Send(&mine, 1, MPI_INT, (rank + 1) % p, 3, MPI_COMM_WORLD);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  chk.expect(app_msg == 1000 + (rank + p - 1) % p, "application message corrupted");
}

// Repeated calls reuse the cached duplicate and schedules; results must stay right.
void hot_loop(Checker& chk) {
  const int rank = chk.rank(), p = chk.size();
  bool ok = true;
  std::string first_error;
  for (int it = 0; it < 200; ++it) {
    const char* algo = kAlgos[it % 6];
    std::vector<long long> v(257);
    for (size_t i = 0; i < v.size(); ++i) v[i] = rank * 3 + static_cast<long long>(i) + it;
    const papcoll_options o = options(algo, it % 3 == 0 ? 0 : 1 + it % 7);
    const int rc =
        papcoll_allreduce(MPI_IN_PLACE, v.data(), 257, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD, &o);
    for (size_t i = 0; i < v.size() && ok; ++i) {
      const long long want = 3LL * p * (p - 1) / 2 + p * (static_cast<long long>(i) + it);
      if (rc != PAPCOLL_SUCCESS || v[i] != want) {
        ok = false;
        first_error = std::string(algo) + " iteration " + std::to_string(it) + ": rc " +
                      std::to_string(rc) + " " + papcoll_last_error();
      }
    }
  }
  chk.expect(ok, "hot loop: " + first_error);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int status = 0;
  {
    Checker chk("test_allreduce_types");
    MPI_Op sum;
    MPI_Op_create(strided_int_sum, 1, &sum);
    derived_types(chk, sum);
    MPI_Op_free(&sum);
    double_int_maxloc(chk);
    communicators(chk);
    isolation(chk);
    hot_loop(chk);
    status = chk.finish();
  }
  MPI_Finalize();
  return status;
}
