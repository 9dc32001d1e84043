#include "api/reduction_call.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <utility>

#include "error/hot_path.hpp"
#include "executor/shared_transport.hpp"
#include "observe/mpi_names.hpp"

namespace papcoll {

PAPCOLL_HOT ArgProblem ReductionCall::check_common(CollectiveCall& call) {
  ArgProblem pr;
  desc_.root = root_;
  desc_.has_op = true;
  desc_.op = op_;
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
  if (ArgProblem op = call.op_problem(op_); !op.ok()) return op;
  if (call.collective() == Collective::reduce)
    if (ArgProblem root = call.root_problem(root_); !root.ok()) return root;
  if (predefined_type(datatype_)) {
    view_ = DataView{layout_, count_, true};
  } else if (MpiStatus s = reduction_view(layout_, count_, op_, &view_); !s.ok()) {
    pr.note(PAPCOLL_ERR_MPI, describe(s), false);
  }
  call.set_reduction_type(view_.unit.type);  // its reduction speed (gamma)
  desc_.units = view_.units;
  desc_.unit_type = view_.unit.type;
  return pr;
}

bool ReductionCall::substitute(CollectiveCall& call, PublishedSource& source, const ArgProblem&,
                               std::string* why) {
  const observe::BoardCall& c = source.found().call;
  MPI_Datatype type = observe::type_of_index(c.type);
  long long count = c.count;
  if (type == MPI_DATATYPE_NULL) {  // derived: its units of one predefined type, same signature
    type = observe::type_of_index(c.unit_type);
    count = c.units;
  }
  if (type == MPI_DATATYPE_NULL) {  // a user op on a derived type runs on it: this rank's own
    DatatypeLayout own;
    if (datatype_ == MPI_DATATYPE_NULL || !query_layout(datatype_, &own).ok()) {
      *why = "their datatype is derived and not of one predefined type, and this rank's is not "
             "usable";
      return false;
    }
    type = datatype_;
    count = c.count;
  }
  MPI_Op op = MPI_OP_NULL;
  if (c.op >= 0)
    op = observe::op_of_index(c.op);
  else if (c.op == observe::kUserOp && op_ != MPI_OP_NULL)
    op = op_;  // the same user op, as MPI requires, unless that is this rank's mistake too
  if (op == MPI_OP_NULL) {
    *why = "their op is user-defined and this rank's is MPI_OP_NULL";
    return false;
  }
  if (count < 0 || count > INT32_MAX) {
    *why = "their count is out of range";
    return false;
  }
  count_ = static_cast<int>(count);
  datatype_ = type;
  op_ = op;
  if (call.collective() == Collective::reduce) root_ = c.root;
  sendbuf_ = nullptr;
  recvbuf_ = nullptr;
  substituting_ = true;
  // The description's own checks on the call as published: only the buffers are missing, and
  // they become stand-ins.
  const ArgProblem pr = check(call);
  if (!pr.ok() && !pr.pattern_known) {
    *why = pr.what;
    return false;
  }
  if (pr.ok()) return true;  // nothing to move
  if (!stand_in(call, pr)) {
    *why = "no stand-in for its buffers";
    return false;
  }
  return true;
}

bool ReductionCall::stand_in_elements(const void* source, void** out) {
  void* tmp = stand_in_.elements(layout_, count_);
  if (source != nullptr && source != MPI_IN_PLACE) {
    if (!copy_elements(tmp, source, count_, layout_, MPI_COMM_SELF).ok()) return false;
  } else {
    own_data_missing_ = true;
    if (!fill_identity(tmp, count_, layout_, op_)) {
      if (!substituting_) return false;
      identity_ = false;  // zeroed by elements(); the others are told their result lacks its data
    }
  }
  *out = tmp;
  return true;
}

PAPCOLL_HOT void ReductionCall::base_input(const CollectiveCall& call, GeneratorInput* in) const {
  in->p = call.p();
  in->root = root_;
  in->cost = call.cost();
  in->nodes = call.context().schedule_nodes;
  in->bytes = static_cast<double>(view_.units) * view_.unit.size;
}

void ReductionCall::prepare(const CollectiveCall& call, const AlgorithmInfo& algo,
                            GeneratorInput* in) const {
  // Agreed: the context's one-node test and the call's size (what shared_window() checks), first
  // without the blocks (the one-node form of late-fold has its own block count), then with them.
  const int64_t bytes = view_.units * view_.unit.size;
  in->cost.shared_memory = call.context().shared_memory && fits_shared_window(call.p(), 0, bytes);
  // Blocks from the agreed units, never from this rank's own count (datatype_layout.hpp).
  in->blocks = call.block_count(algo, *in, view_.units);
  in->cost.shared_memory = in->cost.shared_memory &&
                           fits_shared_window(call.p(), in->blocks, bytes);
  if (!algo.uses_arrivals) in->arrivals.clear();
}

SharedWindow* ReductionCall::window(CollectiveCall& call, const GeneratorInput& in) const {
  if (!one_version_ || !in.cost.shared_memory) return nullptr;
  return call.context().shared_window(in.blocks, view_.units * view_.unit.size);
}

PAPCOLL_HOT AutoRequest ReductionCall::auto_request(const CollectiveCall& call,
                                                    std::vector<double> arrivals) {
  AutoRequest r;
  r.units = view_.units;
  r.commutative = call.commutative();
  base_input(call, &r.base);
  r.base.arrivals = std::move(arrivals);
  r.prepare = [this, &call](const AlgorithmInfo& a, GeneratorInput* g) { prepare(call, a, g); };
  // A pattern from a sampled history costs its measured exchange on every call while the site
  // acts on it (docs/prediction.md, "Sampling"): p - 1 small messages per rank.
  if (call.options().arrivals == nullptr && call.predicted().source == PAPCOLL_PATTERN_HISTORY &&
      call.predicted().sampled)
    r.pattern_cost = (call.p() - 1) * r.base.cost.alpha;
  r.recent = &call.context().recent_choices;
  return r;
}

GeneratorInput ReductionCall::generator_input(const CollectiveCall& call, const AlgorithmInfo& algo,
                                              std::vector<double> arrivals) {
  GeneratorInput in;
  base_input(call, &in);
  in.arrivals = std::move(arrivals);
  prepare(call, algo, &in);
  one_version_ = algo.one_version;
  return in;
}

}  // namespace papcoll
