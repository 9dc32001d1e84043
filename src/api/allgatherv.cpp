// papcoll_allgatherv: argument checks, algorithm choice, then the executor's all-gatherv wrapper.
// The checks shared by every collective, and their order, are in collective_call.hpp.
//
// Every origin's portion is split into the same number n of blocks (options.blocks is n, per
// rank); the schedules' global block o*n + j is block j of origin o (allgatherv_generators.hpp),
// placed at displs[o] by the executor's block table. Both sides of a message derive its element
// ranges from recvcounts, which MPI requires to be the same on every rank, so a block of an origin
// that contributes nothing is simply not sent: the circulant algorithm then skips processors that
// contribute nothing (Traff 2023, Algorithm 2) without a different schedule.
//
// "auto" is the circulant all-to-all broadcast with n from the cost model (registry.cpp), or, when
// every rank is on one node, the linear schedule over the shared-memory transport; any algorithm
// runs over that transport there (executor/shared_transport.hpp; PAPCOLL_SHARED_MEMORY=0 turns
// it off).
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "api/collective_call.hpp"
#include "api/schedule_source.hpp"
#include "executor/executor_vcollectives.hpp"
#include "executor/shared_transport.hpp"

namespace papcoll {
namespace {

constexpr const char* kWho = "papcoll_allgatherv";
constexpr int kOwnTag = 1;  // the self-message that places a rank's own portion

// Places this rank's contribution at its displacement in recvbuf. With identical datatypes a
// plain copy; otherwise MPI converts between the two (matching type signatures) in a message to
// itself on the private communicator.
MpiStatus place_own(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    int recvcount, int displ, MPI_Datatype recvtype,
                    const DatatypeLayout& recv_layout, const CommContext& ctx) {
  void* dst = recv_layout.at(recvbuf, displ);
  if (sendtype == recvtype && sendcount == recvcount)
    return copy_elements(dst, sendbuf, recvcount, recv_layout, ctx.comm);
  return mpi_check(MPI_Sendrecv(sendbuf, sendcount, sendtype, ctx.rank, kOwnTag, dst, recvcount,
                                recvtype, ctx.rank, kOwnTag, ctx.comm, MPI_STATUS_IGNORE),
                   "MPI_Sendrecv");
}

int allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               const int* recvcounts, const int* displs, MPI_Datatype recvtype, MPI_Comm comm,
               const papcoll_options* user_opt, double entry_time) {
  CollectiveCall call(kWho, Collective::allgatherv);
  if (int rc = call.check_options_and_comm(user_opt, comm); rc != PAPCOLL_SUCCESS) return rc;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  DatatypeLayout recv_layout, send_layout;
  if (int rc = call.check_datatype(recvtype, "recvtype", &recv_layout); rc != PAPCOLL_SUCCESS)
    return rc;
  if (recvcounts == nullptr) return call.arg_error("recvcounts is NULL");
  if (displs == nullptr) return call.arg_error("displs is NULL");
  const int p = call.p(), rank = call.rank();
  long long total = 0;
  int largest = 0;
  for (int o = 0; o < p; ++o) {
    if (recvcounts[o] < 0)
      return call.arg_error("recvcounts[" + std::to_string(o) + "] is negative (" +
                            std::to_string(recvcounts[o]) + ")");
    if (displs[o] < 0)
      return call.arg_error("displs[" + std::to_string(o) + "] is negative (" +
                            std::to_string(displs[o]) + ")");
    total += recvcounts[o];
    largest = std::max(largest, recvcounts[o]);
  }
  if (total > 0 && recvbuf == nullptr) return call.local_arg_error("recvbuf is NULL");
  if (!in_place) {
    if (sendcount < 0)
      return call.local_arg_error("sendcount is negative (" + std::to_string(sendcount) + ")");
    if (int rc = call.check_datatype(sendtype, "sendtype", &send_layout); rc != PAPCOLL_SUCCESS)
      return rc;
    if (sendcount > 0 && sendbuf == nullptr) return call.local_arg_error("sendbuf is NULL");
    if (static_cast<long long>(sendcount) * send_layout.size !=
        static_cast<long long>(recvcounts[rank]) * recv_layout.size)
      return call.local_arg_error(
          "sendcount * size(sendtype) = " +
          std::to_string(static_cast<long long>(sendcount) * send_layout.size) +
          " bytes differs from recvcounts[" + std::to_string(rank) + "] * size(recvtype) = " +
          std::to_string(static_cast<long long>(recvcounts[rank]) * recv_layout.size));
  }

  if (int rc = call.enter_monitor(comm, entry_time); rc != PAPCOLL_SUCCESS) return rc;
  if (total == 0 || recv_layout.size == 0) return PAPCOLL_SUCCESS;  // the same on every rank
  if (int rc = call.open_context(comm); rc != PAPCOLL_SUCCESS) return rc;
  CommContext& ctx = call.context();
  // No broadcast or all-gatherv algorithm reads arrival times yet, so none are agreed on.

  // Packed bytes of recvbuf up to its last element: the size of a shared-memory segment.
  int64_t elements = 0;
  for (int o = 0; o < p; ++o)
    if (recvcounts[o] > 0)
      elements = std::max<int64_t>(elements, static_cast<int64_t>(displs[o]) + recvcounts[o]);
  const int64_t packed_bytes = elements * recv_layout.size;
  // On one node the shared-memory transport reads every portion from its origin directly, so
  // the linear schedule moves the fewest bytes (executor/shared_transport.hpp).
  const bool shared_candidate = ctx.shared_memory && fits_shared_window(p, 0, packed_bytes);
  const AlgorithmInfo* algo = call.selection().is_auto
                                  ? choose_allgatherv(GeneratorInput{}, shared_candidate)
                                  : call.selection().algo;
  CollectiveCall::record_algorithm(algo);
  if (algo == nullptr) {
    const int rc = MPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                  recvtype, ctx.comm);
    return rc == MPI_SUCCESS ? PAPCOLL_SUCCESS : call.mpi_error({rc, "MPI_Allgatherv"});
  }
  if (!in_place) {
    const MpiStatus s = place_own(sendbuf, sendcount, sendtype, recvbuf, recvcounts[rank],
                                  displs[rank], recvtype, recv_layout, ctx);
    if (!s.ok()) return call.mpi_error(s);
  }
  if (p == 1) return PAPCOLL_SUCCESS;

  GeneratorInput in;
  in.p = p;
  in.cost = call.cost();
  in.bytes = static_cast<double>(total) * recv_layout.size;
  in.counts.assign(recvcounts, recvcounts + p);
  in.elem_bytes = recv_layout.size;
  // n blocks per origin: the caller's, else the algorithm's default; never more than the largest
  // portion has elements, and small enough that p * n fits the schedule's block ids.
  const long long per_rank = call.options().blocks > 0
                                 ? call.options().blocks
                                 : std::max(1, default_block_count(*algo, in) / p);
  const int n = static_cast<int>(
      std::max(1LL, std::min({per_rank, static_cast<long long>(largest), (1LL << 22) / p})));
  in.blocks = p * n;
  std::shared_ptr<const RankSchedule> schedule;
  if (int rc = obtain_schedule(ctx, *algo, in, kWho, &schedule); rc != PAPCOLL_SUCCESS) return rc;

  const std::vector<BlockRange> table = allgatherv_block_table(recvcounts, displs, p, n);
  SharedWindow* window = shared_candidate ? ctx.shared_window(in.blocks, packed_bytes) : nullptr;
  const MpiStatus s = execute_allgatherv(*schedule, table, recvbuf, recv_layout, ctx.comm,
                                         ctx.scratch, window);
  return s.ok() ? PAPCOLL_SUCCESS : call.mpi_error(s);
}

}  // namespace
}  // namespace papcoll

extern "C" int papcoll_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void* recvbuf, const int* recvcounts, const int* displs,
                                  MPI_Datatype recvtype, MPI_Comm comm,
                                  const papcoll_options* opt) {
  const double entry_time = papcoll::prediction::steady_seconds();
  return papcoll::guarded_call(papcoll::kWho, [&] {
    return papcoll::allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                               recvtype, comm, opt, entry_time);
  });
}
