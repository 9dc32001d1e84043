// What papcoll_allreduce and papcoll_reduce share as descriptions (collective_driver.hpp): the
// checks of count, datatype and op, the view of the data in agreed units (a predefined op on a
// type of one predefined type runs in that type's elements, so (n, MPI_INT) and
// (1, contiguous(n, MPI_INT)) split alike; datatype_layout.hpp DataView), the generator input
// and its block count, and the stand-in of a rank whose buffers are unusable.
#pragma once

#include <mpi.h>

#include <vector>

#include "api/collective_driver.hpp"
#include "api/stand_in.hpp"
#include "executor/shared_window.hpp"

namespace papcoll {

class ReductionCall : public CollectiveDescription {
 public:
  ReductionCall(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root)
      : sendbuf_(sendbuf),
        recvbuf_(recvbuf),
        count_(count),
        datatype_(datatype),
        op_(op),
        root_(root) {}

  CallDescriptor descriptor() const override { return desc_; }
  bool moves_nothing() const override { return count_ == 0 || layout_.size == 0; }
  // The published count, datatype (or its units of one predefined type), op and root; buffers
  // of the rank's own holding the op's identity (zeros for an op without one).
  bool substitute(CollectiveCall& call, PublishedSource& source, const ArgProblem& refusal,
                  std::string* why) override;
  const char* stand_in_words(const CollectiveCall&) const override {
    return identity_ ? "the op's identity" : "zeros (the op has no identity papcoll knows)";
  }
  bool reads_arrivals() const override { return true; }
  long long agreed_bytes() const override {
    return static_cast<long long>(view_.units) * view_.unit.size;
  }
  AutoRequest auto_request(const CollectiveCall& call, std::vector<double> arrivals) override;
  GeneratorInput generator_input(const CollectiveCall& call, const AlgorithmInfo& algo,
                                 std::vector<double> arrivals) override;

 protected:
  // count, datatype, op (and root when root >= 0): problems whose pattern the rank cannot know.
  ArgProblem check_common(CollectiveCall& call);
  // The generator input for `algo` as the call runs it (blocks, round time).
  virtual void prepare(const CollectiveCall& call, const AlgorithmInfo& algo,
                       GeneratorInput* in) const;
  void base_input(const CollectiveCall& call, GeneratorInput* in) const;
  // n zeroed elements to stand in for a buffer; with `source` readable, a copy of it; else the
  // op's identity. False when the op has none (unless substituting: zeros then).
  bool stand_in_elements(const void* source, void** out);
  // The shared-memory window when the call runs over it (shared_transport.hpp): the algorithm is
  // one-version and the generator input says the transport can carry the call, which every rank
  // agrees on; null for messages. Collective (it may grow the window).
  SharedWindow* window(CollectiveCall& call, const GeneratorInput& in) const;
  // A send buffer's data in the view's units.
  const void* data_of(const void* sendbuf) const {
    return sendbuf == MPI_IN_PLACE ? recvbuf_ : sendbuf;
  }

  const void* sendbuf_;
  void* recvbuf_;
  int count_;
  MPI_Datatype datatype_;
  MPI_Op op_;
  int root_;                       // -1: allreduce
  bool substituting_ = false;      // substitute(): an op without identity stands in with zeros
  bool identity_ = true;           // the stand-in holds the op's identity
  bool own_data_missing_ = false;  // the rank contributes a stand-in, not its send data
  DatatypeLayout layout_;
  DataView view_;
  CallDescriptor desc_;
  StandInBuffer stand_in_;
  bool one_version_ = false;  // the algorithm of the call's schedule (generator_input)
};

}  // namespace papcoll
