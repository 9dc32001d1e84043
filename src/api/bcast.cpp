// papcoll_bcast as a description for the driver (collective_driver.hpp).
//
// The schedule runs on the bytes of the type signature (datatype_layout.hpp byte_view): MPI lets
// the root send (n, MPI_INT) while the others receive (1, contiguous(n, MPI_INT)), so blocks are
// split from count * size(datatype), which every rank agrees on, never from a rank's own count.
// A dense datatype is broadcast in place; another is packed into scratch at the root and
// unpacked at the others, so the holes of a receive datatype are never touched.
//
// "auto" is the circulant broadcast (Traff 2023, Algorithm 1) with the block count of the cost
// model (registry.cpp, pipeline_blocks): under the Hockney model it is never slower than the
// binomial tree, which is its own n = 1 case, and its n adapts to the message size. With an
// imbalanced agreed arrival pattern it is the arrival-aware broadcast where the cost model says
// it pays (docs/circulant.md "Arrival-aware broadcast and all-gatherv"; selection.hpp
// choose_bcast).
#include <climits>
#include <string>
#include <utility>
#include <vector>

#include "api/collective_driver.hpp"
#include "api/stand_in.hpp"
#include "executor/executor_vcollectives.hpp"
#include "observe/mpi_names.hpp"

namespace papcoll {
namespace {

constexpr const char* kBcastWho = "papcoll_bcast";

class BcastCall final : public CollectiveDescription {
 public:
  BcastCall(void* buffer, int count, MPI_Datatype datatype, int root)
      : buffer_(buffer), count_(count), datatype_(datatype), root_(root) {}

  ArgProblem check(CollectiveCall& call) override {
    ArgProblem pr;
    desc_.root = root_;
    if (count_ < 0) {
      pr.note(PAPCOLL_ERR_ARG, "count is negative (" + std::to_string(count_) + ")", false);
      return pr;
    }
    if (std::string why;
        const int code = call.datatype_problem(datatype_, "datatype", &layout_, &why)) {
      pr.note(code, why, false);
      return pr;
    }
    desc_.count = count_;
    desc_.type = datatype_;
    if (pr = call.root_problem(root_); !pr.ok()) return pr;
    view_ = byte_view(layout_, count_);
    desc_.units = static_cast<long long>(view_.units);
    is_root_ = call.rank() == root_;
    if (count_ > 0 && buffer_ == nullptr) pr.note(PAPCOLL_ERR_ARG, "buffer is NULL");
    return pr;
  }

  // Zeros of the rank's own: the root sends them (the other ranks receive zeros and cannot tell,
  // docs/errors.md), another rank receives into them.
  bool stand_in(CollectiveCall&, const ArgProblem&) override {
    buffer_ = stand_in_.elements(layout_, count_);
    return true;
  }

  // The published count and datatype (its bytes, for a derived one: the same signature size) and
  // root; a zeroed buffer of the rank's own, which a root sends and another rank receives into.
  bool substitute(CollectiveCall& call, PublishedSource& source, const ArgProblem&,
                  std::string* why) override {
    const observe::BoardCall& c = source.found().call;
    MPI_Datatype type = observe::type_of_index(c.type);
    long long count = c.count;
    if (type == MPI_DATATYPE_NULL) {
      type = MPI_BYTE;
      count = c.units;
    }
    if (count < 0 || count > INT_MAX) {
      *why = "their count is out of range";
      return false;
    }
    count_ = static_cast<int>(count);
    datatype_ = type;
    root_ = c.root;
    buffer_ = nullptr;
    const ArgProblem pr = check(call);
    if (!pr.ok() && !pr.pattern_known) {
      *why = pr.what;
      return false;
    }
    return pr.ok() || stand_in(call, pr);
  }
  // Every rank's result is the root's data (a root taking part has only stand-in zeros).
  DataReaders data_readers(const CollectiveCall& call) const override {
    return call.rank() == root_ ? DataReaders::all : DataReaders::none;
  }
  const char* stand_in_words(const CollectiveCall& call) const override {
    return call.rank() == root_ ? "zeros" : "a scratch buffer";
  }

  CallDescriptor descriptor() const override { return desc_; }
  long long agreed_bytes() const override { return static_cast<long long>(view_.units); }
  bool moves_nothing() const override { return view_.units == 0; }
  // Message sizes are ints; MPI_Bcast handles larger buffers in the user's elements.
  bool needs_native() const override { return view_.units > INT_MAX; }

  int run_native(CollectiveCall& call) override {
    const int rc = MPI_Bcast(buffer_, count_, datatype_, root_, call.context().comm);
    return rc == MPI_SUCCESS ? PAPCOLL_SUCCESS : call.mpi_error({rc, "MPI_Bcast"});
  }

  bool run_alone(CollectiveCall&, int*) override { return true; }  // the root's buffer is it

  // Arrivals: agreed when "auto" or an arrival-aware row (a late receiver need not be waited
  // for) reads them.
  bool reads_arrivals() const override { return true; }

  AutoRequest auto_request(const CollectiveCall& call, std::vector<double> arrivals) override {
    AutoRequest r = CollectiveDescription::auto_request(call, std::move(arrivals));
    r.units = view_.units;
    base_input(call, &r.base);
    r.prepare = [&call, this](const AlgorithmInfo& a, GeneratorInput* g) { prepare(call, a, g); };
    return r;
  }

  GeneratorInput generator_input(const CollectiveCall& call, const AlgorithmInfo& algo,
                                 std::vector<double> arrivals) override {
    GeneratorInput in;
    base_input(call, &in);
    in.arrivals = std::move(arrivals);
    prepare(call, algo, &in);
    return in;
  }

  MpiStatus execute(CollectiveCall& call, const RankSchedule& rs,
                    const GeneratorInput& in) override {
    CommContext& ctx = call.context();
    MpiStatus s;
    if (view_.direct) {
      s = execute_bcast(rs, in.blocks, buffer_, view_.units, byte_layout(), ctx.comm, ctx.scratch);
    } else {
      char* stage = ctx.work.reserve(view_.units);
      if (is_root_) s = pack_elements(stage, buffer_, count_, layout_, ctx.comm);
      if (s.ok())
        s = execute_bcast(rs, in.blocks, stage, view_.units, byte_layout(), ctx.comm, ctx.scratch);
      if (!s.ok()) ctx.work.abandon();
      if (s.ok() && !is_root_) s = unpack_elements(buffer_, stage, count_, layout_, ctx.comm);
    }
    if (!s.ok()) stand_in_.abandon();
    return s;
  }

 private:
  void base_input(const CollectiveCall& call, GeneratorInput* in) const {
    in->p = call.p();
    in->root = root_;
    in->cost = call.cost();
    in->nodes = call.context().schedule_nodes;
    in->bytes = static_cast<double>(view_.units);
  }

  // Blocks from the agreed bytes; arrivals only for a row that reads them.
  void prepare(const CollectiveCall& call, const AlgorithmInfo& algo, GeneratorInput* in) const {
    in->blocks = call.block_count(algo, *in, view_.units);
    if (!algo.uses_arrivals) in->arrivals.clear();
  }

  void* buffer_;
  int count_;
  MPI_Datatype datatype_;
  int root_;
  bool is_root_ = false;
  DatatypeLayout layout_;
  DataView view_;
  CallDescriptor desc_;
  StandInBuffer stand_in_;
};

}  // namespace
}  // namespace papcoll

extern "C" int papcoll_bcast(void* buffer, int count, MPI_Datatype datatype, int root,
                             MPI_Comm comm, const papcoll_options* opt) {
  const double entry_time = papcoll::entry_clock(opt);  // before anything else
  return papcoll::guarded_call(papcoll::kBcastWho, [&] {
    papcoll::BcastCall d(buffer, count, datatype, root);
    return papcoll::run_collective(papcoll::kBcastWho, papcoll::Collective::bcast, d, opt, comm,
                                   entry_time);
  });
}
