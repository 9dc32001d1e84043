// What papcoll_scatterv and papcoll_gatherv share beyond collective_call.hpp: the argument checks
// of the root's side (every portion) and of a rank's own portion, and the agreement with the root.
//
// Every rank must derive the same tree, and the tree depends on every portion's size and on the
// links (scatter_gather_generators.hpp), but MPI gives the counts to the root only. So a call
// begins with one broadcast from the root (agree_on_root_input): every portion's size in bytes,
// the root's alpha and beta, which link model it uses (the model's values only the first time its
// path is used on the communicator) and the root's verdict on its own arguments. Everything the
// trees are built from then comes from the root, so it is bit-identical on every rank by
// construction; only the root reads options.model_file.
//
// Errors without hangs: a problem in the root's arguments (or its model file) travels in that
// broadcast and every rank returns its code. A problem in another rank's own arguments (scatterv:
// recvbuf, recvcount, recvtype; gatherv: sendbuf, sendcount, sendtype, and their size against
// the root's bytes for that rank) is an ArgProblem kept until the end of the call: the rank still
// relays the other portions through its subtree, so nobody waits for it forever, and then
// returns the error; the other ranks cannot see it.
#pragma once

#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "api/collective_call.hpp"
#include "model/link_model.hpp"
#include "schedule/registry.hpp"

namespace papcoll {

// The root's side: every rank's portion in buf (scatterv: sendbuf, sendcounts, displs, sendtype;
// gatherv: recvbuf, recvcounts, displs, recvtype). The names are the parameters' for messages.
struct PortionsArgs {
  const void* buf;
  const int* counts;
  const int* displs;
  MPI_Datatype type;
  const char* buf_name;
  const char* counts_name;
  const char* type_name;
};

// Checks the root's side (arrays not NULL, counts and displacements not negative, a usable type,
// a buffer when any portion has bytes, at most INT_MAX bytes in all, so that every message's byte
// count fits MPI's int) and gives every portion's size in bytes.
ArgProblem check_root_portions(const CollectiveCall& call, const PortionsArgs& a,
                               DatatypeLayout* layout, std::vector<long long>* bytes);

// A rank's own portion (scatterv: recvbuf, recvcount, recvtype; gatherv: sendbuf, sendcount,
// sendtype).
struct OwnArgs {
  const void* buf;
  int count;
  MPI_Datatype type;
  const char* buf_name;
  const char* count_name;
  const char* type_name;
};

// A count that is not negative, a usable type, a buffer when the portion has bytes, and not
// MPI_IN_PLACE (the root's MPI_IN_PLACE is handled before this check).
ArgProblem check_own_portion(const CollectiveCall& call, const OwnArgs& a, DatatypeLayout* layout);

// count * size(type) of the own portion against the root's bytes for this rank (MPI requires the
// type signatures to match; papcoll can check the byte counts).
ArgProblem check_own_bytes(const OwnArgs& a, const DatatypeLayout& layout, long long root_bytes,
                           const std::string& root_side);

// What every rank learns from the root: identical on every rank.
struct RootInput {
  std::vector<long long> bytes;                 // every rank's portion, in bytes
  CostParams cost;                              // the root's alpha and beta
  std::shared_ptr<const LinkModel> link_model;  // null: cost.alpha and beta for every pair

  long long total() const;
  // The input of the tree generators: p blocks, block i being rank i's bytes.
  GeneratorInput generator_input(int p, int root) const;
};

// Collective over the call's private communicator (after open_context). At the root, `problem`
// is its verdict on its own arguments and `bytes` every portion's size; elsewhere both are
// ignored. Returns PAPCOLL_SUCCESS on every rank, or on every rank the root's problem's code or
// PAPCOLL_ERR_MODEL for its options.model_file, with the message (papcoll_last_error()).
int agree_on_root_input(const CollectiveCall& call, int root, const ArgProblem& problem,
                        std::vector<long long> bytes, RootInput* out);

}  // namespace papcoll
