// papcoll_scatterv and papcoll_gatherv: one description over a direction (collective_driver.hpp).
// Scatterv moves the root's portions out to their ranks, gatherv the ranks' portions in to the
// root; everything else is the same: the root's side (every portion: buffer, counts, displs,
// type), each rank's own portion, the root's broadcast of the portion sizes and the link model
// (scatter_gather_call.hpp), the tree (obtain_sg_schedule) and the executor's wrapper for the
// direction.
//
// The trees are those of Dichev, Rychkov and Lastovetsky (docs/algorithms.md, "Scatterv and
// gatherv"): a parent sends each child its whole subtree's portions in one message (gatherv: the
// same trees run backwards in time). "auto" is choose_sg_tree, the tree with the smallest
// predicted time under the link model, in the direction the data flows.
//
// Errors: with a tree, the root's verdict on its side travels in its broadcast, so every rank
// returns it; a rank's own problem is deferred: it relays the other portions and returns its
// error afterwards. With "native" (no broadcast), a NULL buffer is a problem taken part in with
// stand-ins (collective_driver.hpp); any other is refused without the pattern.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "api/collective_driver.hpp"
#include "api/scatter_gather_call.hpp"
#include "api/schedule_source.hpp"
#include "api/stand_in.hpp"
#include "executor/executor_scatter_gather.hpp"

namespace papcoll {
namespace {

enum class Direction { scatter, gather };

class ScatterGatherCall final : public CollectiveDescription {
 public:
  // `all`: the root's side; `own`: this rank's portion (scatterv: received, gatherv: sent).
  ScatterGatherCall(Direction dir, const PortionsArgs& all, const OwnArgs& own, int root)
      : dir_(dir), all_args_(all), own_args_(own), root_(root) {}

  ArgProblem check(CollectiveCall& call) override {
    desc_.root = root_;
    ArgProblem pr = call.root_problem(root_);
    if (!pr.ok()) return pr;
    rank_ = call.rank();
    is_root_ = rank_ == root_;
    in_place_ = is_root_ && own_args_.buf == MPI_IN_PLACE;
    native_ = call.selection().algo == nullptr && !call.selection().is_auto;
    if (is_root_) {
      root_problem_ = check_root_portions(call, all_args_, &all_.layout, &bytes_);
      if (root_problem_.ok() && !in_place_) {
        root_problem_ = check_own_portion(call, own_args_, &own_.layout);
        if (root_problem_.ok())
          root_problem_ = check_own_bytes(own_args_, own_.layout, bytes_[root_],
                                          std::string(all_args_.counts_name) + "[" +
                                              std::to_string(root_) + "] * size(" +
                                              all_args_.type_name + ")");
        if (root_problem_.ok() &&
            spans_overlap(own_args_.buf, own_args_.count, own_.layout, all_args_.buf,
                          span(all_args_), all_.layout)) {
          aliased_ = true;
          root_problem_.note(PAPCOLL_ERR_ARG, std::string(own_args_.buf_name) + " and " +
                                                  all_args_.buf_name +
                                                  " overlap at the root (aliased)");
        }
      }
    } else {
      own_problem_ = check_own_portion(call, own_args_, &own_.layout);
    }
    if (native_) return is_root_ ? root_problem_ : own_problem_;
    // A tree: the root's problem goes to every rank in its broadcast (agree); another rank's
    // own problem is taken part in (it relays) and returned at the end.
    ArgProblem deferred = own_problem_;
    deferred.pattern_known = true;
    return deferred;
  }

  bool stand_in(CollectiveCall&, const ArgProblem& problem) override {
    if (!native_) {
      own_.usable = false;  // relays only; writes nothing into its buffer
      return true;
    }
    // "native": a NULL buffer is replaced by zeroed memory, and so is the root's receiving side
    // when its buffers overlap (it still sends from its own).
    if (!problem.pattern_known) return false;
    if (is_root_ && (all_args_.buf == nullptr || (aliased_ && dir_ == Direction::gather)))
      all_args_.buf = stand_in_all_.elements(all_.layout, span(all_args_));
    if (!in_place_ && (own_args_.buf == nullptr || (aliased_ && dir_ == Direction::scatter)))
      own_args_.buf = stand_in_own_.elements(own_.layout, own_args_.count);
    return true;
  }

  CallDescriptor descriptor() const override { return desc_; }
  bool moves_nothing() const override { return false; }  // the root's broadcast says

  int agree(CollectiveCall& call) override {
    if (native_) return PAPCOLL_SUCCESS;
    PAPCOLL_TRY(agree_on_root_input(call, root_, root_problem_, bytes_, &agreed_));
    if (!is_root_ && own_problem_.ok()) {
      own_problem_ = check_own_bytes(
          own_args_, own_.layout, agreed_.bytes[rank_],
          "the root's " + std::string(all_args_.counts_name) + "[" + std::to_string(rank_) +
              "] * size(" + all_args_.type_name + ")");
      own_.usable = own_problem_.ok();
    }
    return PAPCOLL_SUCCESS;
  }

  const ArgProblem* late_problem() const override { return native_ ? nullptr : &own_problem_; }

  int run_native(CollectiveCall& call) override {
    const MPI_Comm comm = call.context().comm;
    const PortionsArgs& a = all_args_;
    const OwnArgs& o = own_args_;
    if (dir_ == Direction::scatter) {
      const int rc = MPI_Scatterv(a.buf, a.counts, a.displs, a.type, const_cast<void*>(o.buf),
                                  o.count, o.type, root_, comm);
      return rc == MPI_SUCCESS ? PAPCOLL_SUCCESS : call.mpi_error({rc, "MPI_Scatterv"});
    }
    const int rc = MPI_Gatherv(o.buf, o.count, o.type, const_cast<void*>(a.buf), a.counts,
                               a.displs, a.type, root_, comm);
    return rc == MPI_SUCCESS ? PAPCOLL_SUCCESS : call.mpi_error({rc, "MPI_Gatherv"});
  }

  bool run_alone(CollectiveCall&, int*) override { return false; }  // the tree path handles it

  GeneratorInput generator_input(const CollectiveCall& call, const AlgorithmInfo&,
                                 std::vector<double>) override {
    return agreed_.generator_input(call.p(), root_);
  }

  int obtain(CollectiveCall& call, const AlgorithmInfo* algo, std::vector<double>,
             std::shared_ptr<const RankSchedule>* schedule, GeneratorInput* in) override {
    static const auto kNothingToMove = std::make_shared<const RankSchedule>();
    *in = agreed_.generator_input(call.p(), root_);
    if (agreed_.total() - agreed_.bytes[root_] == 0) {
      *schedule = kNothingToMove;
      return PAPCOLL_SUCCESS;
    }
    const AlgorithmInfo* used = nullptr;
    PAPCOLL_TRY(obtain_sg_schedule(call.context(), call.collective(), algo, *in, call.who(),
                                   schedule, &used));
    CollectiveCall::record_algorithm(used);
    return PAPCOLL_SUCCESS;
  }

  MpiStatus execute(CollectiveCall& call, const RankSchedule& rs, const GeneratorInput&) override {
    all_.buf = const_cast<void*>(all_args_.buf);  // scatterv: the root only sends from it
    all_.counts = all_args_.counts;
    all_.displs = all_args_.displs;
    own_.buf = const_cast<void*>(own_args_.buf);  // gatherv: only read
    own_.count = own_args_.count;
    return dir_ == Direction::scatter
               ? execute_scatterv(rs, agreed_.bytes, root_, all_, own_, in_place_, call.context())
               : execute_gatherv(rs, agreed_.bytes, root_, all_, own_, in_place_, call.context());
  }

 private:
  // Elements of the root's buffer up to the last one of a portion.
  int64_t span(const PortionsArgs& a) const {
    int64_t n = 0;
    if (a.counts == nullptr || a.displs == nullptr) return 0;
    for (size_t i = 0; i < bytes_.size(); ++i)
      if (a.counts[i] > 0)
        n = std::max<int64_t>(n, static_cast<int64_t>(a.displs[i]) + a.counts[i]);
    return n;
  }
  const Direction dir_;
  PortionsArgs all_args_;
  OwnArgs own_args_;
  const int root_;
  int rank_ = 0;
  bool is_root_ = false, in_place_ = false, native_ = false, aliased_ = false;
  RootPortions all_;
  OwnPortion own_;
  std::vector<long long> bytes_;
  ArgProblem root_problem_;  // at the root: goes to every rank (trees)
  ArgProblem own_problem_;   // elsewhere: returned at the end
  RootInput agreed_;
  CallDescriptor desc_;
  StandInBuffer stand_in_all_, stand_in_own_;
};

}  // namespace
}  // namespace papcoll

extern "C" int papcoll_scatterv(const void* sendbuf, const int* sendcounts, const int* displs,
                                MPI_Datatype sendtype, void* recvbuf, int recvcount,
                                MPI_Datatype recvtype, int root, MPI_Comm comm,
                                const papcoll_options* opt) {
  constexpr const char* kWho = "papcoll_scatterv";
  const double entry_time = papcoll::entry_clock(opt);  // before anything else
  return papcoll::guarded_call(kWho, [&] {
    papcoll::ScatterGatherCall d(
        papcoll::Direction::scatter,
        {sendbuf, sendcounts, displs, sendtype, "sendbuf", "sendcounts", "sendtype"},
        {recvbuf, recvcount, recvtype, "recvbuf", "recvcount", "recvtype"}, root);
    return papcoll::run_collective(kWho, papcoll::Collective::scatterv, d, opt, comm, entry_time);
  });
}

extern "C" int papcoll_gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                               void* recvbuf, const int* recvcounts, const int* displs,
                               MPI_Datatype recvtype, int root, MPI_Comm comm,
                               const papcoll_options* opt) {
  constexpr const char* kWho = "papcoll_gatherv";
  const double entry_time = papcoll::entry_clock(opt);  // before anything else
  return papcoll::guarded_call(kWho, [&] {
    papcoll::ScatterGatherCall d(
        papcoll::Direction::gather,
        {recvbuf, recvcounts, displs, recvtype, "recvbuf", "recvcounts", "recvtype"},
        {sendbuf, sendcount, sendtype, "sendbuf", "sendcount", "sendtype"}, root);
    return papcoll::run_collective(kWho, papcoll::Collective::gatherv, d, opt, comm, entry_time);
  });
}
