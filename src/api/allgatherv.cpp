// papcoll_allgatherv as a description for the driver (collective_driver.hpp).
//
// Portion o is recvcounts[o] elements of recvtype, but MPI lets ranks describe the same data
// differently (their own recvtype and counts with matching type signatures), so the schedule runs
// on bytes: origin o's portion is recvcounts[o] * size(recvtype) bytes, which every rank agrees
// on, split into the same number n of blocks (options.blocks is n, per rank); the schedules'
// global block o*n + j is block j of origin o (allgatherv_generators.hpp). A dense recvtype is
// gathered in place (block (o, j) at displs[o] * extent plus its offset); another runs on the
// portions packed one after the other in scratch and is unpacked at the end, so the holes and
// gaps of recvbuf are never touched. A block of an origin that contributes nothing is not sent:
// the circulant algorithm then skips processors that contribute nothing (Traff 2023, Algorithm 2)
// without a different schedule.
//
// When every rank is on one node any algorithm runs over the shared-memory transport
// (executor/shared_transport.hpp; PAPCOLL_SHARED_MEMORY=0 turns it off), and "auto" takes the
// linear schedule there (selection.cpp choose_auto); elsewhere "auto" is the circulant
// all-to-all broadcast, or the arrival-aware all-gatherv with an imbalanced agreed arrival pattern
// where the cost model says it pays (docs/circulant.md "Arrival-aware broadcast and
// all-gatherv"; selection.hpp choose_allgatherv).
#include <algorithm>
#include <climits>
#include <string>
#include <utility>
#include <vector>

#include "api/collective_driver.hpp"
#include "api/stand_in.hpp"
#include "executor/executor_vcollectives.hpp"
#include "executor/shared_transport.hpp"
#include "schedule/blocks.hpp"

namespace papcoll {
namespace {

constexpr const char* kAllgathervWho = "papcoll_allgatherv";
constexpr int kOwnPortionTag = 1;  // the self-message that places a rank's own portion

// Places this rank's contribution at its displacement in recvbuf. With identical datatypes a
// plain copy; otherwise MPI converts between the two (matching type signatures) in a message to
// itself on the private communicator.
MpiStatus place_own(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    int recvcount, int displ, MPI_Datatype recvtype,
                    const DatatypeLayout& recv_layout, const CommContext& ctx) {
  void* dst = recv_layout.at(recvbuf, displ);
  if (sendtype == recvtype && sendcount == recvcount)
    return copy_elements(dst, sendbuf, recvcount, recv_layout, ctx.comm);
  return mpi_check(MPI_Sendrecv(sendbuf, sendcount, sendtype, ctx.rank, kOwnPortionTag, dst,
                                recvcount, recvtype, ctx.rank, kOwnPortionTag, ctx.comm,
                                MPI_STATUS_IGNORE),
                   "MPI_Sendrecv");
}

class AllgathervCall final : public CollectiveDescription {
 public:
  AllgathervCall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 const int* recvcounts, const int* displs, MPI_Datatype recvtype)
      : sendbuf_(sendbuf),
        sendcount_(sendcount),
        sendtype_(sendtype),
        recvbuf_(recvbuf),
        recvcounts_(recvcounts),
        displs_(displs),
        recvtype_(recvtype),
        in_place_(sendbuf == MPI_IN_PLACE) {}

  ArgProblem check(CollectiveCall& call) override {
    ArgProblem pr;
    desc_.count_name = "the sum of recvcounts";
    if (std::string why;
        const int code = call.datatype_problem(recvtype_, "recvtype", &recv_layout_, &why)) {
      pr.note(code, why, false);
      return pr;
    }
    if (recvcounts_ == nullptr) pr.note(PAPCOLL_ERR_ARG, "recvcounts is NULL", false);
    if (displs_ == nullptr) pr.note(PAPCOLL_ERR_ARG, "displs is NULL", false);
    if (!pr.ok()) return pr;
    const int p = call.p();
    rank_ = call.rank();
    bytes_.assign(static_cast<size_t>(p), 0);
    long long count = 0;
    for (int o = 0; o < p; ++o) {
      if (recvcounts_[o] < 0)
        pr.note(PAPCOLL_ERR_ARG,
                "recvcounts[" + std::to_string(o) + "] is negative (" +
                    std::to_string(recvcounts_[o]) + ")",
                false);
      if (displs_[o] < 0)
        pr.note(PAPCOLL_ERR_ARG,
                "displs[" + std::to_string(o) + "] is negative (" + std::to_string(displs_[o]) +
                    ")",
                false);
      if (!pr.ok()) return pr;
      bytes_[o] = static_cast<long long>(recvcounts_[o]) * recv_layout_.size;
      total_ += bytes_[o];
      largest_ = std::max(largest_, bytes_[o]);
      count += recvcounts_[o];
      if (recvcounts_[o] > 0)
        span_ = std::max(span_, static_cast<int64_t>(displs_[o]) + recvcounts_[o]);
    }
    desc_.count = count;
    desc_.type = recvtype_;
    desc_.portions_hash = hash_sizes(bytes_.data(), p);
    desc_.units = total_;
    desc_.portions = bytes_.data();

    // This rank's own side: the pattern is known from recvcounts, so a problem here is taken
    // part in with stand-ins.
    if (total_ > 0 && recvbuf_ == nullptr) pr.note(PAPCOLL_ERR_ARG, "recvbuf is NULL");
    if (in_place_) return pr;
    send_ok_ = false;
    if (sendcount_ < 0) {
      pr.note(PAPCOLL_ERR_ARG, "sendcount is negative (" + std::to_string(sendcount_) + ")");
      return pr;
    }
    if (std::string why;
        const int code = call.datatype_problem(sendtype_, "sendtype", &send_layout_, &why)) {
      pr.note(code, why);
      return pr;
    }
    const long long send_bytes = static_cast<long long>(sendcount_) * send_layout_.size;
    if (send_bytes > 0 && sendbuf_ == nullptr) {
      pr.note(PAPCOLL_ERR_ARG, "sendbuf is NULL");
      return pr;
    }
    if (send_bytes != bytes_[rank_]) {
      pr.note(PAPCOLL_ERR_ARG, "sendcount * size(sendtype) = " + std::to_string(send_bytes) +
                                   " bytes differs from recvcounts[" + std::to_string(rank_) +
                                   "] * size(recvtype) = " + std::to_string(bytes_[rank_]));
      return pr;
    }
    send_ok_ = true;
    if (spans_overlap(sendbuf_, sendcount_, send_layout_, recvbuf_, span_, recv_layout_))
      pr.note(PAPCOLL_ERR_ARG, "sendbuf and recvbuf overlap (aliased; use MPI_IN_PLACE)");
    return pr;
  }

  // recvbuf is replaced by zeroed memory of the rank's own; its portion is its send data where
  // that is usable (the other ranks get it), else zeros.
  bool stand_in(CollectiveCall&, const ArgProblem&) override {
    recvbuf_ = stand_in_.elements(recv_layout_, span_);
    // Its portion: its send data where usable, else the (zeroed) slot of the stand-in.
    own_data_missing_ = in_place_ || !send_ok_;
    if (!in_place_ && !send_ok_) in_place_ = true;
    return true;
  }

  // Every portion's bytes as published (the board's extension), received as bytes into a zeroed
  // buffer of the rank's own, its own portion zeros (in place there).
  bool substitute(CollectiveCall& call, PublishedSource& source, const ArgProblem&,
                  std::string* why) override {
    const std::vector<long long>& portions = source.found().arrays.portions;
    const int p = call.p();
    if (static_cast<int>(portions.size()) != p) {
      *why = "their portions are not on the board";
      return false;
    }
    sub_counts_.assign(static_cast<size_t>(p), 0);
    sub_displs_.assign(static_cast<size_t>(p), 0);
    long long at = 0;
    for (int o = 0; o < p; ++o) {
      if (portions[o] < 0 || at + portions[o] > INT_MAX) {
        *why = "their portions exceed 2^31 - 1 bytes";
        return false;
      }
      sub_counts_[o] = static_cast<int>(portions[o]);
      sub_displs_[o] = static_cast<int>(at);
      at += portions[o];
    }
    recvtype_ = MPI_BYTE;
    recvcounts_ = sub_counts_.data();
    displs_ = sub_displs_.data();
    sendbuf_ = MPI_IN_PLACE;
    in_place_ = true;
    recvbuf_ = nullptr;
    total_ = largest_ = 0;
    span_ = 0;
    const ArgProblem pr = check(call);
    if (!pr.ok() && !pr.pattern_known) {
      *why = pr.what;
      return false;
    }
    return pr.ok() || stand_in(call, pr);
  }
  // Every rank's result holds every portion.
  DataReaders data_readers(const CollectiveCall&) const override {
    return own_data_missing_ ? DataReaders::all : DataReaders::none;
  }
  const char* stand_in_words(const CollectiveCall&) const override { return "zeros"; }

  CallDescriptor descriptor() const override { return desc_; }
  long long agreed_bytes() const override { return static_cast<long long>(total_); }
  bool moves_nothing() const override { return total_ == 0; }
  // Message sizes are ints; MPI_Allgatherv handles larger calls in the user's elements.
  bool needs_native() const override { return total_ > INT_MAX; }

  // Arrivals: agreed when "auto" or an arrival-aware row (the early ranks gather among
  // themselves while the late ones compute) reads them.
  bool reads_arrivals() const override { return true; }

  AutoRequest auto_request(const CollectiveCall& call, std::vector<double> arrivals) override {
    AutoRequest r = CollectiveDescription::auto_request(call, std::move(arrivals));
    r.units = total_;
    r.shared_memory = shared(call);
    base_input(call, &r.base);
    r.prepare = [&call, this](const AlgorithmInfo& a, GeneratorInput* g) { prepare(call, a, g); };
    return r;
  }

  int run_native(CollectiveCall& call) override {
    const int rc = MPI_Allgatherv(in_place_ ? MPI_IN_PLACE : sendbuf_, sendcount_, sendtype_,
                                  recvbuf_, recvcounts_, displs_, recvtype_, call.context().comm);
    return rc == MPI_SUCCESS ? PAPCOLL_SUCCESS : call.mpi_error({rc, "MPI_Allgatherv"});
  }

  bool run_alone(CollectiveCall& call, int* rc) override {
    const MpiStatus s = place(call);
    *rc = s.ok() ? PAPCOLL_SUCCESS : call.mpi_error(s);
    return true;
  }

  GeneratorInput generator_input(const CollectiveCall& call, const AlgorithmInfo& algo,
                                 std::vector<double> arrivals) override {
    GeneratorInput in;
    base_input(call, &in);
    in.arrivals = std::move(arrivals);
    prepare(call, algo, &in);
    n_ = in.blocks / call.p();
    return in;
  }

  MpiStatus execute(CollectiveCall& call, const RankSchedule& rs,
                    const GeneratorInput& in) override {
    CommContext& ctx = call.context();
    SharedWindow* window = shared(call) ? ctx.shared_window(in.blocks, total_) : nullptr;
    const MpiStatus s = recv_layout_.dense ? run_direct(call, rs, window)
                                           : run_packed(call, rs, window);
    if (!s.ok()) stand_in_.abandon();
    return s;
  }

 private:
  void base_input(const CollectiveCall& call, GeneratorInput* in) const {
    in->p = call.p();
    in->cost = call.cost();
    in->nodes = call.context().schedule_nodes;
    in->bytes = static_cast<double>(total_);
    in->counts = bytes_;
    in->elem_bytes = 1;
  }

  // n blocks per origin: the caller's, else the algorithm's default; never more than the largest
  // portion has bytes, and small enough that p * n fits the schedule's block ids. Arrivals only
  // for a row that reads them.
  void prepare(const CollectiveCall& call, const AlgorithmInfo& algo, GeneratorInput* in) const {
    const int p = call.p();
    const long long per_rank = call.options().blocks > 0
                                   ? call.options().blocks
                                   : std::max(1, default_block_count(algo, *in) / p);
    const int n = static_cast<int>(std::max(1LL, std::min({per_rank, largest_, (1LL << 22) / p})));
    in->blocks = p * n;
    if (!algo.uses_arrivals) in->arrivals.clear();
  }

  bool shared(const CollectiveCall& call) const {
    return call.context().shared_memory && fits_shared_window(call.p(), 0, total_);
  }

  // The own portion from sendbuf to its place in recvbuf (nothing to do in place).
  MpiStatus place(const CollectiveCall& call) const {
    if (in_place_) return {};
    return place_own(sendbuf_, sendcount_, sendtype_, recvbuf_, recvcounts_[rank_], displs_[rank_],
                     recvtype_, recv_layout_, call.context());
  }

  // Byte ranges of block (o, j) = origin o's bytes split into n_, at base[o] + the block offset.
  std::vector<BlockRange> table(const std::vector<int64_t>& base) const {
    std::vector<BlockRange> t;
    t.reserve(bytes_.size() * static_cast<size_t>(n_));
    for (size_t o = 0; o < bytes_.size(); ++o)
      for (int j = 0; j < n_; ++j) {
        const BlockRange r = block_range(bytes_[o], n_, j);
        t.push_back({base[o] + r.offset, r.count});
      }
    return t;
  }

  // recvbuf of a dense recvtype as bytes: portion o at displs[o] * extent.
  MpiStatus run_direct(CollectiveCall& call, const RankSchedule& rs, SharedWindow* window) {
    if (MpiStatus s = place(call); !s.ok()) return s;
    std::vector<int64_t> base(bytes_.size());
    for (size_t o = 0; o < base.size(); ++o)
      base[o] = static_cast<int64_t>(displs_[o]) * recv_layout_.extent;
    CommContext& ctx = call.context();
    return execute_allgatherv(rs, table(base), recvbuf_, byte_layout(), ctx.comm, ctx.scratch,
                              window);
  }

  // The portions packed one after the other in the communicator's work buffer.
  MpiStatus run_packed(CollectiveCall& call, const RankSchedule& rs, SharedWindow* window) {
    CommContext& ctx = call.context();
    std::vector<int64_t> base(bytes_.size());
    int64_t at = 0;
    for (size_t o = 0; o < base.size(); ++o) {
      base[o] = at;
      at += bytes_[o];
    }
    char* stage = ctx.work.reserve(std::max<int64_t>(1, total_));
    char* mine = stage + base[rank_];
    MpiStatus s = in_place_ ? pack_elements(mine, recv_layout_.at(recvbuf_, displs_[rank_]),
                                            recvcounts_[rank_], recv_layout_, ctx.comm)
                            : pack_elements(mine, sendbuf_, sendcount_, send_layout_, ctx.comm);
    if (s.ok())
      s = execute_allgatherv(rs, table(base), stage, byte_layout(), ctx.comm, ctx.scratch, window);
    if (!s.ok()) {
      ctx.work.abandon();
      return s;
    }
    for (size_t o = 0; o < base.size(); ++o) {
      if (in_place_ && static_cast<int>(o) == rank_) continue;
      s = unpack_elements(recv_layout_.at(recvbuf_, displs_[o]), stage + base[o], recvcounts_[o],
                          recv_layout_, ctx.comm);
      if (!s.ok()) return s;
    }
    return {};
  }

  const void* sendbuf_;
  const int sendcount_;
  const MPI_Datatype sendtype_;
  void* recvbuf_;
  const int* recvcounts_;
  const int* displs_;
  MPI_Datatype recvtype_;
  std::vector<int> sub_counts_, sub_displs_;  // substitute(): the published portions as bytes
  bool own_data_missing_ = false;             // its portion is zeros of a stand-in
  bool in_place_;
  bool send_ok_ = true;
  int rank_ = 0;
  int n_ = 1;
  DatatypeLayout recv_layout_, send_layout_;
  std::vector<long long> bytes_;  // every origin's portion, in bytes (agreed)
  long long total_ = 0, largest_ = 0;
  int64_t span_ = 0;  // elements of recvbuf up to the last one written
  CallDescriptor desc_;
  StandInBuffer stand_in_;
};

}  // namespace
}  // namespace papcoll

extern "C" int papcoll_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void* recvbuf, const int* recvcounts, const int* displs,
                                  MPI_Datatype recvtype, MPI_Comm comm,
                                  const papcoll_options* opt) {
  const double entry_time = papcoll::entry_clock(opt);  // before anything else
  return papcoll::guarded_call(papcoll::kAllgathervWho, [&] {
    papcoll::AllgathervCall d(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype);
    return papcoll::run_collective(papcoll::kAllgathervWho, papcoll::Collective::allgatherv, d, opt,
                                   comm, entry_time);
  });
}
