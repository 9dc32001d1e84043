// An MPI-3 shared-memory window over the ranks of a communicator that all run on one node, the
// memory of the shared-memory transport (shared_transport.hpp). Over Open MPI's shared-memory
// BTL without kernel single-copy (containers) every point-to-point byte is copied twice, by the
// sender into a FIFO and by the receiver out of it; through this window a block is copied once
// into the sender's segment and once out by each reader, and the readers copy in parallel.
//
// Each rank owns one segment: a header (the epoch up to which the rank has finished reading
// others' segments), one flag per block (the epoch in which the rank published it) and the data,
// blocks of a call one after the other in block order, in packed form (`size` bytes per element,
// no holes): positions every rank derives from the block lengths alone. Every segment has the same
// size, derived from values that are identical on every rank, so (re)allocating is a collective
// every rank enters at the same call without extra messages.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "executor/mpi_status.hpp"

namespace papcoll {

class SharedWindow {
 public:
  SharedWindow() = default;
  SharedWindow(const SharedWindow&) = delete;
  SharedWindow& operator=(const SharedWindow&) = delete;
  ~SharedWindow();  // frees nothing through MPI (see release())

  // Whether the window may be used on `comm`: `one_node` (every rank shares one node, the same on
  // every rank: node_detection.hpp) and PAPCOLL_SHARED_MEMORY is not 0 on any rank (collective;
  // false under SimGrid SMPI, whose simulated hosts have no common memory).
  static MpiStatus usable(MPI_Comm comm, bool one_node, bool* out);

  // Makes room for `blocks` flags and `data_bytes` of data per segment (collective over `comm`,
  // the private communicator; every rank must pass the same values). Grows only; growing waits
  // until every rank has finished reading the previous call's data. A failure is the same on
  // every rank (the ranks agree), and leaves no window.
  MpiStatus reserve(MPI_Comm comm, int64_t blocks, int64_t data_bytes);

  // Starts the next call: a new epoch, after every rank has finished reading the previous
  // call's data (a rank may then overwrite its own segment).
  void begin_call();
  // Marks this rank's reads of the current call done.
  void end_call();

  uint64_t epoch() const { return epoch_; }
  char* data(int rank) const { return segments_[static_cast<size_t>(rank)] + header_bytes_; }
  // Publishes block b of this rank (its data must already be in data(own)).
  void publish(int block);
  // Waits until `rank` has published block b in the current call.
  void wait_published(int rank, int block) const;

  // Frees the window (collective). Called by the communicator context before it frees its
  // private communicator.
  void release();

 private:
  uint64_t* flags(int rank) const {
    return reinterpret_cast<uint64_t*>(segments_[static_cast<size_t>(rank)] + kLine);
  }
  uint64_t* done(int rank) const {
    return reinterpret_cast<uint64_t*>(segments_[static_cast<size_t>(rank)]);
  }
  void wait_all_done(uint64_t epoch) const;

  static constexpr int64_t kLine = 128;  // keeps the done word and the flags on separate lines

  MPI_Win win_ = MPI_WIN_NULL;
  int rank_ = 0;
  int size_ = 0;
  std::vector<char*> segments_;
  int64_t blocks_ = 0;
  int64_t data_bytes_ = 0;
  int64_t header_bytes_ = 0;
  uint64_t epoch_ = 0;
};

}  // namespace papcoll
