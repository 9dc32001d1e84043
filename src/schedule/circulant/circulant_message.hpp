// The message of Träff's all-to-all broadcast (arXiv 2312.11236, Algorithm 2) named by a rule
// (schedule.hpp, BlockRule): one block of every origin, which block depending on where the
// origin stands relative to the receiver. A calling rank's all-gatherv schedule is then its
// n - 1 + q rounds of peers and rules, O(n + log p) like the broadcast's (circulant_bcast.cpp),
// and the block of each origin is looked up when the message is packed: from the receive
// schedule of every virtual processor, the table Algorithm 2 has each processor compute ("a
// receive schedule for each other processor as root"), O(p log p) once per p in the process and
// shared by every schedule, call and rank of that size. Packing the message touches its p blocks,
// so the lookup is O(1) per block moved.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "schedule/circulant/circulant_skips.hpp"
#include "schedule/schedule.hpp"

namespace papcoll::circulant {

// recvblock_v[k] for every processor v of a p-processor circulant broadcast (root 0), stored
// round by round: column(k)[v]. Values lie in [-q, q-1] (circulant_recv.hpp), so a byte each.
class RecvTable {
 public:
  explicit RecvTable(int p);
  int p() const { return p_; }
  int q() const { return q_; }
  const int8_t* column(int k) const { return cells_.data() + static_cast<size_t>(k) * p_; }

 private:
  int p_, q_;
  std::vector<int8_t> cells_;
};

// The table of p, built on first use and kept while a schedule holds it (the process keeps the
// last few as well). Thread-safe.
std::shared_ptr<const RecvTable> recv_table(int p);

// The blocks the processor `to` receives in a round of index k of p = sk.p ranks (offset added to
// the schedule values, circulant_tables.hpp) of the all-gatherv of B = `blocks` global blocks
// (origin o owning [ceil(oB/p), ceil((o+1)B/p)), allgatherv_generators.hpp): for every origin
// o != to, block recvblock_{(to - o) mod p}[k] + offset of o, capped to o's last block; origins
// whose value is negative, and origins owning nothing, contribute nothing. The sender's op and
// the receiver's op are the same set. O(1), no table, because of two facts of the receive
// schedules (tests/unit/schedule/circulant/circulant_message_test.cpp checks both against the
// table):
//  - the largest value of column k is k (processor skip[k] gets block k from the root), so with
//    B > p, where every origin owns a block, the message is empty iff k + offset < 0; otherwise
//    it is a rule read from the table;
//  - the processors with a non-negative value in column k are exactly [skip[k], skip[k+1]) (a
//    one-block broadcast reaches them in round k), so with B <= p (n = 1, offset 0) the message
//    is every block of the origins (to - skip[k+1], to - skip[k]] mod p: one or two runs.
BlockSet allgather_message(const Skips& sk, int blocks, int k, int offset, int to);

// The same over a group of g = sk.p positions every one of which is an origin, position o owning
// the blocks owned[o], ids ascending with o (arrival_allgatherv.cpp's early group); n the largest
// count. With n >= 2 every position owns a block (counts of one split differ by at most one), so
// the first fact applies as above; with n = 1 the message is the blocks of the positions
// (to - skip[k+1], to - skip[k]] mod g, listed, O(their number): O(g) over a rank's rounds.
BlockSet group_allgather_message(const Skips& sk,
                                 const std::shared_ptr<const std::vector<BlockRun>>& owned, int n,
                                 int k, int offset, int to);

}  // namespace papcoll::circulant
