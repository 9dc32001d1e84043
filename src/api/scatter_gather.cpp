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
#include <climits>
#include <memory>
#include <string>
#include <vector>

#include "api/collective_driver.hpp"
#include "api/scatter_gather_call.hpp"
#include "api/schedule_source.hpp"
#include "api/stand_in.hpp"
#include "executor/executor_scatter_gather.hpp"
#include "observe/mpi_names.hpp"

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
        if (root_problem_.ok() && spans_overlap(own_args_.buf, own_args_.count, own_.layout,
                                                all_args_.buf, span(all_args_), all_.layout)) {
          aliased_ = true;
          root_problem_.note(PAPCOLL_ERR_ARG, std::string(own_args_.buf_name) + " and " +
                                                  all_args_.buf_name +
                                                  " overlap at the root (aliased)");
        }
      }
    } else {
      own_problem_ = check_own_portion(call, own_args_, &own_.layout);
    }
    // The board's: the own portion's bytes; the root's every portion's.
    desc_.units = own_problem_.ok() && own_args_.buf != MPI_IN_PLACE
                      ? static_cast<long long>(own_args_.count) * own_.layout.size
                      : -1;
    desc_.portions = is_root_ && root_problem_.ok() ? bytes_.data() : nullptr;
    if (native_) return is_root_ ? root_problem_ : own_problem_;
    // A tree: the root's problem goes to every rank in its broadcast (agree); another rank's
    // own problem is taken part in (it relays) and returned at the end.
    ArgProblem deferred = own_problem_;
    deferred.pattern_known = true;
    return deferred;
  }

  bool stand_in(CollectiveCall&, const ArgProblem& problem) override {
    if (!native_) {
      own_.usable = false;                            // relays only; writes nothing into its buffer
      own_data_missing_ = dir_ == Direction::gather;  // gatherv: zeros for its portion
      return true;
    }
    // "native": a NULL buffer is replaced by zeroed memory, and so is the root's receiving side
    // when its buffers overlap (it still sends from its own).
    if (!problem.pattern_known) return false;
    if (is_root_ && (all_args_.buf == nullptr || (aliased_ && dir_ == Direction::gather))) {
      all_args_.buf = stand_in_all_.elements(all_.layout, span(all_args_));
      own_data_missing_ = own_data_missing_ || dir_ == Direction::scatter;
    }
    if (!in_place_ && (own_args_.buf == nullptr || (aliased_ && dir_ == Direction::scatter))) {
      own_args_.buf = stand_in_own_.elements(own_.layout, own_args_.count);
      own_data_missing_ = own_data_missing_ || dir_ == Direction::gather;
    }
    return true;
  }

  // With a tree, only the root as published: the root sends this rank's refusal in its broadcast
  // (every rank returns it), another rank relays the others' portions and keeps nothing. With
  // "native", MPI_BYTE portions from the board: the root's every portion (another rank's own),
  // the root's its own from every other rank's published portion, buffers zeroed memory.
  bool substitute(CollectiveCall& call, PublishedSource& source, const ArgProblem& refusal,
                  std::string* why) override {
    const int p = call.p();
    root_ = source.found().call.root;
    if (root_ < 0 || root_ >= p) {
      *why = "their root is out of range";
      return false;
    }
    rank_ = call.rank();
    is_root_ = rank_ == root_;
    desc_.root = root_;
    native_ = call.selection().algo == nullptr && !call.selection().is_auto;
    if (!native_) {
      if (is_root_) {
        root_problem_ = refusal;  // every rank returns it: nobody's result holds stand-ins
        bytes_.assign(static_cast<size_t>(p), 0);
      } else {
        own_problem_ = refusal;
        own_problem_.pattern_known = true;
        own_data_missing_ = dir_ == Direction::gather;
      }
      own_.usable = false;
      return true;
    }
    own_args_.buf = nullptr;
    own_args_.type = MPI_BYTE;
    own_args_.count = 0;
    all_args_.buf = nullptr;
    if (is_root_) {
      std::vector<observe::BoardCall> all;
      if (!source.calls(&all)) {
        *why = "a rank's portion is not on the board";
        return false;
      }
      sub_counts_.assign(static_cast<size_t>(p), 0);
      sub_displs_.assign(static_cast<size_t>(p), 0);
      long long at = 0;
      for (int q = 0; q < p; ++q) {
        const long long b = q == rank_ ? 0 : all[static_cast<size_t>(q)].units;
        if (b < 0 || at + b > INT_MAX) {
          *why = "rank " + std::to_string(q) + "'s portion is not usable";
          return false;
        }
        sub_counts_[static_cast<size_t>(q)] = static_cast<int>(b);
        sub_displs_[static_cast<size_t>(q)] = static_cast<int>(at);
        at += b;
      }
      all_args_.counts = sub_counts_.data();
      all_args_.displs = sub_displs_.data();
      all_args_.type = MPI_BYTE;
    } else {
      observe::FoundCall root_call;
      if (!source.call_of(root_, &root_call) ||
          static_cast<int>(root_call.arrays.portions.size()) != p) {
        *why = "the root's portions are not on the board";
        return false;
      }
      const long long b = root_call.arrays.portions[static_cast<size_t>(rank_)];
      if (b < 0 || b > INT_MAX) {
        *why = "its portion is out of range";
        return false;
      }
      own_args_.count = static_cast<int>(b);
    }
    in_place_ = false;
    aliased_ = false;
    root_problem_ = own_problem_ = ArgProblem{};
    const ArgProblem pr = check(call);
    if (!pr.ok() && !pr.pattern_known) {
      *why = pr.what;
      return false;
    }
    return pr.ok() || stand_in(call, pr);
  }
  // Scatterv: a root's portions are every rank's result; gatherv: every portion is the root's.
  DataReaders data_readers(const CollectiveCall&) const override {
    if (!own_data_missing_) return DataReaders::none;
    if (dir_ == Direction::scatter) return is_root_ ? DataReaders::all : DataReaders::none;
    return is_root_ ? DataReaders::none : DataReaders::root;
  }
  const char* stand_in_words(const CollectiveCall&) const override {
    if (dir_ == Direction::scatter)
      return is_root_ ? "zeros for every portion" : "a scratch buffer";
    return is_root_ ? "a scratch buffer" : "zeros for its portion";
  }

  CallDescriptor descriptor() const override { return desc_; }
  bool moves_nothing() const override { return false; }  // the root's broadcast says

  int agree(CollectiveCall& call) override {
    if (native_) return PAPCOLL_SUCCESS;
    PAPCOLL_TRY(agree_on_root_input(call, root_, root_problem_, bytes_, &agreed_));
    if (!is_root_ && own_problem_.ok()) {
      own_problem_ = check_own_bytes(own_args_, own_.layout, agreed_.bytes[rank_],
                                     "the root's " + std::string(all_args_.counts_name) + "[" +
                                         std::to_string(rank_) + "] * size(" + all_args_.type_name +
                                         ")");
      own_.usable = own_problem_.ok();
      if (!own_.usable && dir_ == Direction::gather) own_data_missing_ = true;
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
    const int rc = MPI_Gatherv(o.buf, o.count, o.type, const_cast<void*>(a.buf), a.counts, a.displs,
                               a.type, root_, comm);
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
  int root_;
  std::vector<int> sub_counts_, sub_displs_;  // substitute(): the root's portions as bytes
  bool own_data_missing_ = false;  // its data (scatterv: the root's portions) is a stand-in
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
