// papcoll_allreduce as a description for the driver (collective_driver.hpp): its buffer rules
// (MPI_IN_PLACE, a send buffer never written, aliased buffers refused), the stand-ins of a rank
// whose buffers are unusable, and the executor wrapper.
#include <string>
#include <vector>

#include "api/reduction_call.hpp"
#include "error/hot_path.hpp"
#include "executor/executor.hpp"
#include "executor/shared_transport.hpp"

namespace papcoll {
namespace {

constexpr const char* kAllreduceWho = "papcoll_allreduce";

class AllreduceCall final : public ReductionCall {
 public:
  AllreduceCall(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op)
      : ReductionCall(sendbuf, recvbuf, count, datatype, op, -1) {}

  PAPCOLL_HOT ArgProblem check(CollectiveCall& call) override {
    ArgProblem pr = check_common(call);
    if (!pr.ok() || count_ == 0) return pr;
    if (recvbuf_ == nullptr)
      pr.note(PAPCOLL_ERR_ARG, "recvbuf is NULL");
    else if (sendbuf_ == nullptr)
      pr.note(PAPCOLL_ERR_ARG, "sendbuf is NULL (use MPI_IN_PLACE)");
    else if (sendbuf_ != MPI_IN_PLACE &&
             spans_overlap(sendbuf_, count_, layout_, recvbuf_, count_, layout_))
      pr.note(PAPCOLL_ERR_ARG, "sendbuf and recvbuf overlap (aliased; use MPI_IN_PLACE)");
    return pr;
  }

  // The rank's data (a copy of sendbuf when it is readable, else the op's identity) in memory of
  // its own, reduced in place there; the result is dropped.
  bool stand_in(CollectiveCall&, const ArgProblem&) override {
    const void* source = sendbuf_ == MPI_IN_PLACE ? nullptr : sendbuf_;
    void* tmp = nullptr;
    if (!stand_in_elements(source, &tmp)) return false;
    sendbuf_ = MPI_IN_PLACE;
    recvbuf_ = tmp;
    return true;
  }

  // Every rank's result holds every rank's data (its own send data, copied, is not missing).
  DataReaders data_readers(const CollectiveCall&) const override {
    return own_data_missing_ ? DataReaders::all : DataReaders::none;
  }

  PAPCOLL_HOT int run_native(CollectiveCall& call) override {
    const int rc = MPI_Allreduce(sendbuf_, recvbuf_, count_, datatype_, op_, call.context().comm);
    return rc == MPI_SUCCESS ? PAPCOLL_SUCCESS : call.mpi_error({rc, "MPI_Allreduce"});
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
      s = execute_allreduce(rs, in.blocks, sendbuf_, recvbuf_, view_.units, view_.unit, op_,
                            ctx.comm, ctx.scratch, window);
    } else {
      // A type with holes: its data packed into units, reduced there, unpacked into recvbuf.
      char* stage = ctx.work.reserve(view_.units * view_.unit.size);
      s = pack_elements(stage, data_of(sendbuf_), count_, layout_, ctx.comm);
      if (s.ok())
        s = execute_schedule_on(rs, in.blocks, ExecBuffer{stage, view_.units, view_.unit, op_},
                                ctx.comm, ctx.scratch, window);
      if (!s.ok()) ctx.work.abandon();
      if (s.ok()) s = unpack_elements(recvbuf_, stage, count_, layout_, ctx.comm);
    }
    if (!s.ok()) stand_in_.abandon();
    return s;
  }
};

}  // namespace
}  // namespace papcoll

extern "C" PAPCOLL_HOT int papcoll_allreduce(const void* sendbuf, void* recvbuf, int count,
                                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                             const papcoll_options* opt) {
  const double entry_time = papcoll::entry_clock(opt);  // before anything else
  return papcoll::guarded_call(papcoll::kAllreduceWho, [&] {
    papcoll::AllreduceCall d(sendbuf, recvbuf, count, datatype, op);
    return papcoll::run_collective(papcoll::kAllreduceWho, papcoll::Collective::allreduce, d, opt,
                                   comm, entry_time);
  });
}
