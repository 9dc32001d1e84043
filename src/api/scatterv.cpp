// papcoll_scatterv: argument checks, the agreement with the root, the tree, then the executor's
// scatterv wrapper. The checks shared by every collective, and their order, are in
// collective_call.hpp; what scatterv and gatherv share (the root's broadcast of the counts and the
// model, deferred errors) in scatter_gather_call.hpp.
//
// The trees are those of Dichev, Rychkov and Lastovetsky (docs/algorithms.md, "Scatterv and
// gatherv"): a parent sends each child its whole subtree's portions in one message. "auto" is
// choose_sg_tree, the tree with the smallest predicted time under the link model.
#include <string>
#include <vector>

#include "api/collective_call.hpp"
#include "api/scatter_gather_call.hpp"
#include "api/schedule_source.hpp"
#include "executor/executor_scatter_gather.hpp"

namespace papcoll {
namespace {

constexpr const char* kWho = "papcoll_scatterv";

int scatterv(const void* sendbuf, const int* sendcounts, const int* displs, MPI_Datatype sendtype,
             void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
             const papcoll_options* user_opt, double entry_time) {
  CollectiveCall call(kWho, Collective::scatterv);
  if (int rc = call.check_options_and_comm(user_opt, comm); rc != PAPCOLL_SUCCESS) return rc;
  if (int rc = call.check_root(root); rc != PAPCOLL_SUCCESS) return rc;
  const int p = call.p(), rank = call.rank();
  const bool is_root = rank == root;
  const bool in_place = is_root && recvbuf == MPI_IN_PLACE;

  RootPortions all;
  std::vector<long long> bytes;
  ArgProblem root_problem;  // at the root: goes to every rank
  if (is_root)
    root_problem = check_root_portions(
        call, {sendbuf, sendcounts, displs, sendtype, "sendbuf", "sendcounts", "sendtype"},
        &all.layout, &bytes);
  OwnPortion own;
  ArgProblem own_problem;  // elsewhere: returned at the end
  const OwnArgs own_args{recvbuf, recvcount, recvtype, "recvbuf", "recvcount", "recvtype"};
  if (!in_place) {
    ArgProblem& problem = is_root ? root_problem : own_problem;
    if (problem.ok()) problem = check_own_portion(call, own_args, &own.layout);
    if (is_root && problem.ok())
      problem = check_own_bytes(own_args, own.layout, bytes[root],
                                "sendcounts[" + std::to_string(root) + "] * size(sendtype)");
  }

  if (call.selection().algo == nullptr && !call.selection().is_auto) {  // native
    // Before any communication, but seen by one rank only (its own arguments).
    if (!root_problem.ok()) return root_problem.report_local(call);
    if (!own_problem.ok()) return own_problem.report_local(call);
    if (int rc = call.enter_monitor(comm, entry_time); rc != PAPCOLL_SUCCESS) return rc;
    if (int rc = call.open_context(comm); rc != PAPCOLL_SUCCESS) return rc;
    CollectiveCall::record_algorithm(nullptr);
    const int rc = MPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                                recvtype, root, call.context().comm);
    return rc == MPI_SUCCESS ? PAPCOLL_SUCCESS : call.mpi_error({rc, "MPI_Scatterv"});
  }

  if (int rc = call.enter_monitor(comm, entry_time); rc != PAPCOLL_SUCCESS) return rc;
  if (int rc = call.open_context(comm); rc != PAPCOLL_SUCCESS) return rc;
  CommContext& ctx = call.context();
  // No scatterv algorithm reads arrival times, so none are agreed on.
  RootInput agreed;
  if (int rc = agree_on_root_input(call, root, root_problem, std::move(bytes), &agreed);
      rc != PAPCOLL_SUCCESS)
    return rc;
  if (!is_root && own_problem.ok())
    own_problem = check_own_bytes(own_args, own.layout, agreed.bytes[rank],
                                  "the root's sendcounts[" + std::to_string(rank) +
                                      "] * size(sendtype)");
  own.buf = recvbuf;
  own.count = recvcount;
  own.usable = own_problem.ok();
  all.buf = const_cast<void*>(sendbuf);  // the root only sends (execute_scatterv)
  all.counts = sendcounts;
  all.displs = displs;

  static const RankSchedule kNothingToMove;
  std::shared_ptr<const RankSchedule> schedule;
  if (agreed.total() - agreed.bytes[root] > 0) {
    const AlgorithmInfo* used = nullptr;
    if (int rc = obtain_sg_schedule(ctx, Collective::scatterv, call.selection().algo,
                                    agreed.generator_input(p, root), kWho, &schedule, &used);
        rc != PAPCOLL_SUCCESS)
      return rc;
    CollectiveCall::record_algorithm(used);  // nothing to move: no algorithm ("")
  }
  const MpiStatus s = execute_scatterv(schedule ? *schedule : kNothingToMove, agreed.bytes, root,
                                       all, own, in_place, ctx);
  if (!s.ok()) return call.mpi_error(s);
  return own_problem.ok() ? PAPCOLL_SUCCESS : own_problem.report_local(call);
}

}  // namespace
}  // namespace papcoll

extern "C" int papcoll_scatterv(const void* sendbuf, const int* sendcounts, const int* displs,
                                MPI_Datatype sendtype, void* recvbuf, int recvcount,
                                MPI_Datatype recvtype, int root, MPI_Comm comm,
                                const papcoll_options* opt) {
  const double entry_time = papcoll::prediction::steady_seconds();
  return papcoll::guarded_call(papcoll::kWho, [&] {
    return papcoll::scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                             root, comm, opt, entry_time);
  });
}
