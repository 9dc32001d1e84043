// The scatterv and gatherv wrappers of the executor. A tree schedule
// (scatter_gather_generators.hpp) has p blocks, block i being rank i's portion, and a message
// carries a whole subtree's portions. Here blocks are runs of bytes (MPI_BYTE): the portions'
// packed form, i.e. their data bytes in type-map order (memcpy for dense types,
// MPI_Pack/MPI_Unpack otherwise), so that a relay can forward portions whose datatype it does not
// know. Each rank places the blocks its steps touch in its own buffer with its own block table
// (BlockRange in bytes); both sides of a message list the same blocks with the same sizes, so the
// byte streams match whatever the offsets.
//
// Copies are avoided where the layout allows: the root sends a dense sendtype's portions straight
// from sendbuf and receives a dense recvtype's straight into recvbuf; a leaf (a rank that only
// receives or only sends its own portion) uses its own buffer when its type is dense. Relays and
// other types go through a compact buffer (the communicator's `work` scratch), in block order.
#pragma once

#include <mpi.h>

#include <vector>

#include "executor/comm_context.hpp"
#include "executor/executor.hpp"

namespace papcoll {

// The root's side: every rank's portion (scatterv: sendbuf, sendcounts, displs, sendtype;
// gatherv: recvbuf, recvcounts, displs, recvtype). Read at the root only.
struct RootPortions {
  void* buf = nullptr;  // scatterv: only read
  const int* counts = nullptr;
  const int* displs = nullptr;
  DatatypeLayout layout;
};

// A rank's own portion (scatterv: recvbuf, recvcount, recvtype; gatherv: sendbuf, sendcount,
// sendtype). `usable` is false when the rank's own arguments are wrong: it then only relays,
// never touches `buf`, and (gatherv) sends zero bytes in place of its portion.
struct OwnPortion {
  void* buf = nullptr;  // gatherv: only read
  int count = 0;
  DatatypeLayout layout;
  bool usable = true;
};

// Runs this rank's part `rs` of a scatterv (gatherv) tree in which rank i's portion has bytes[i]
// bytes. At the root, `in_place` means its own portion stays where it is (scatterv: in sendbuf;
// gatherv: already in recvbuf), else it is converted between the two sides' datatypes. `rs` may
// be empty (nothing to move). The send side is never written.
MpiStatus execute_scatterv(const RankSchedule& rs, const std::vector<long long>& bytes, int root,
                           const RootPortions& all, const OwnPortion& own, bool in_place,
                           CommContext& ctx);
MpiStatus execute_gatherv(const RankSchedule& rs, const std::vector<long long>& bytes, int root,
                          const RootPortions& all, const OwnPortion& own, bool in_place,
                          CommContext& ctx);

}  // namespace papcoll
