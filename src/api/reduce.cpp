// papcoll_reduce as a description for the driver (collective_driver.hpp). What is reduce's own: a
// root (part of the schedule cache key), buffers that matter only at the root, MPI_IN_PLACE only
// at the root, Clairvoyant's round time, a work buffer from the communicator's context at the
// other ranks, and the shared-memory transport for one-version schedules when every rank is on
// one node (docs/shared-memory.md).
#include <algorithm>
#include <string>
#include <vector>

#include "api/reduction_call.hpp"
#include "executor/executor_reduce.hpp"
#include "executor/shared_transport.hpp"

namespace papcoll {
namespace {

constexpr const char* kReduceWho = "papcoll_reduce";

// Clairvoyant splits arrivals into whole rounds of d and refuses more than about 1e15 of them;
// far before that the schedule is one process at a time anyway. A coarser d keeps every
// (agreed) input valid and changes no decision that matters.
constexpr double kMaxRoundsOfSpread = 1e12;

class ReduceCall final : public ReductionCall {
 public:
  using ReductionCall::ReductionCall;

  ArgProblem check(CollectiveCall& call) override {
    ArgProblem pr = check_common(call);
    if (!pr.ok()) return pr;
    is_root_ = call.rank() == root_;
    if (!is_root_ && sendbuf_ == MPI_IN_PLACE)
      pr.note(PAPCOLL_ERR_ARG, "MPI_IN_PLACE is only allowed at the root");
    if (count_ == 0) return pr;
    if (sendbuf_ == nullptr)
      pr.note(PAPCOLL_ERR_ARG, is_root_ ? "sendbuf is NULL (use MPI_IN_PLACE)" : "sendbuf is NULL");
    else if (is_root_ && recvbuf_ == nullptr)
      pr.note(PAPCOLL_ERR_ARG, "recvbuf is NULL at the root");
    else if (is_root_ && sendbuf_ != MPI_IN_PLACE &&
             spans_overlap(sendbuf_, count_, layout_, recvbuf_, count_, layout_))
      pr.note(PAPCOLL_ERR_ARG,
              "sendbuf and recvbuf overlap at the root (aliased; use MPI_IN_PLACE)");
    return pr;
  }

  // The root reduces into memory of its own, starting from a copy of sendbuf where it is
  // readable, else from the op's identity; another rank contributes the identity. Results are
  // dropped.
  bool stand_in(CollectiveCall&, const ArgProblem&) override {
    void* tmp = nullptr;
    if (is_root_) {
      if (!stand_in_elements(sendbuf_ == MPI_IN_PLACE ? nullptr : sendbuf_, &tmp)) return false;
      sendbuf_ = MPI_IN_PLACE;
      recvbuf_ = tmp;
    } else {
      if (!stand_in_elements(nullptr, &tmp)) return false;
      sendbuf_ = tmp;
    }
    return true;
  }

  // Only the root has a result (its own send data, copied, is not missing).
  DataReaders data_readers(const CollectiveCall&) const override {
    return own_data_missing_ ? DataReaders::root : DataReaders::none;
  }

  int run_native(CollectiveCall& call) override {
    const int rc =
        MPI_Reduce(sendbuf_, recvbuf_, count_, datatype_, op_, root_, call.context().comm);
    return rc == MPI_SUCCESS ? PAPCOLL_SUCCESS : call.mpi_error({rc, "MPI_Reduce"});
  }

  bool run_alone(CollectiveCall& call, int* rc) override {
    if (sendbuf_ == MPI_IN_PLACE) return true;
    const MpiStatus s = copy_elements(recvbuf_, sendbuf_, count_, layout_, call.context().comm);
    *rc = s.ok() ? PAPCOLL_SUCCESS : call.mpi_error(s);
    return true;
  }

  MpiStatus execute(CollectiveCall& call, const RankSchedule& rs,
                    const GeneratorInput& in) override {
    CommContext& ctx = call.context();
    SharedWindow* const window = this->window(call, in);
    MpiStatus s;
    if (view_.direct) {
      s = execute_reduce(rs, in.blocks, ctx.rank, root_, sendbuf_, recvbuf_, view_.units,
                         view_.unit, op_, ctx.comm, ctx.scratch, ctx.work, window);
    } else {
      // A type with holes: its data packed into units and reduced there (the root unpacks the
      // result into recvbuf).
      char* stage = ctx.work.reserve(view_.units * view_.unit.size);
      s = pack_elements(stage, data_of(sendbuf_), count_, layout_, ctx.comm);
      if (s.ok())
        s = execute_schedule_on(rs, in.blocks, ExecBuffer{stage, view_.units, view_.unit, op_},
                                ctx.comm, ctx.scratch, window);
      if (!s.ok()) ctx.work.abandon();
      if (s.ok() && is_root_) s = unpack_elements(recvbuf_, stage, count_, layout_, ctx.comm);
    }
    if (!s.ok()) stand_in_.abandon();
    return s;
  }

 private:
  void prepare(const CollectiveCall& call, const AlgorithmInfo& algo,
               GeneratorInput* g) const override {
    ReductionCall::prepare(call, algo, g);
    // Clairvoyant's round time d: sending and reducing one segment under the cost model
    // (alpha + (beta + gamma) * bytes / blocks), in seconds like the arrivals.
    g->round_time = block_round_time(*g);
    if (!g->arrivals.empty()) {
      const auto [lo, hi] = std::minmax_element(g->arrivals.begin(), g->arrivals.end());
      g->round_time = std::max(g->round_time, (*hi - *lo) / kMaxRoundsOfSpread);
    }
  }

  bool is_root_ = false;
};

}  // namespace
}  // namespace papcoll

extern "C" int papcoll_reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                              MPI_Op op, int root, MPI_Comm comm, const papcoll_options* opt) {
  const double entry_time = papcoll::entry_clock(opt);  // before anything else
  return papcoll::guarded_call(papcoll::kReduceWho, [&] {
    papcoll::ReduceCall d(sendbuf, recvbuf, count, datatype, op, root);
    return papcoll::run_collective(papcoll::kReduceWho, papcoll::Collective::reduce, d, opt, comm,
                                   entry_time);
  });
}
