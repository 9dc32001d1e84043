// O(p) estimates of broadcasts and reductions over a tree, whole or pipelined in segments, as the
// MPI libraries run them (MPICH's binomial trees, Open MPI's binomial, k-nomial, k-ary, chain and
// in-order trees; select/library_model.hpp) and as papcoll's tree schedules do. The rules are the
// cost model's (verify/cost_model.hpp): a message of m bytes takes alpha + beta m once both ends
// have reached it, a reducing receive adds gamma m, a rank sends and receives one message at a
// time. Two additions the MPI libraries need:
//  - A parent may serve a batch of children at once (Open MPI's trees post every child's send
//    and wait for all; MVAPICH's k-nomial one level at a time): the batch's transfers share the
//    sender's link (estimate_topology.hpp), so each takes alpha + k beta m.
//  - Eager sends: a message of at most `eager_bytes` completes for its sender without its
//    receiver (MPI's eager protocol; SMPI's detached sends up to smpi/send-is-detached-thresh),
//    so a sender does not wait for a late receiver. 0 (the cost model): every send waits.
// Ranks of one node share its link with the transfers the node's other ranks run in the same
// round of the tree (the round each transfer has when all ranks arrive together).
//
// Pipelining is estimated in closed form rather than segment by segment (O(p), not O(p S)):
// segment 0 is timed exactly through the tree; every later segment follows at the period of the
// slowest rank on its path (a rank serving k children needs the sum of their transfer times per
// segment; a reducing rank the sum of its receives and reductions). Exact for one segment and for
// a chain; tests/unit/schedule/estimate_tree_test.cpp compares both with the cost model on
// papcoll's binomial and chain broadcasts and its binomial and linear reduces.
#pragma once

#include <vector>

#include "schedule/registry.hpp"

namespace papcoll::estimate {

// A rooted tree over the ranks: each rank's parent and its children in the order it serves them
// (sends to in a broadcast, receives from in a reduction), grouped in batches it serves at once.
struct RankTree {
  int root = 0;
  std::vector<int> parent;  // -1 at the root
  std::vector<int> first;   // the children of u are child[first[u] .. first[u + 1])
  std::vector<int> child;
  std::vector<int> batch;  // per entry of child: equal numbers among one parent's are one batch
  std::vector<int> order;  // every rank after its parent, the root first

  int p() const { return static_cast<int>(parent.size()); }
  int children(int u) const {
    return first[static_cast<size_t>(u) + 1] - first[static_cast<size_t>(u)];
  }
};

// How children are served: one at a time, or all of one parent's at once.
enum class Serve { one_at_a_time, all_at_once };

// The trees, on relative ranks v = (r - root) mod p.
// Binomial (MPICH's MPIR_Bcast_intra_binomial and MPIR_Reduce_intra_binomial, papcoll's
// binomial_tree.hpp, Open MPI's in-order binomial tree): the children of v are v + 2^i for every
// 2^i below v's lowest set bit; `largest_first` orders them by decreasing i (MPICH's broadcast),
// else increasing (the reductions, which receive the smallest subtree first).
RankTree binomial_tree(int p, int root, bool largest_first, Serve serve);
// Open MPI's binomial broadcast tree (ompi_coll_base_topo_build_bmtree): the children of v are
// v + 2^i for every 2^i > v (a mirror image of the binomial tree above).
RankTree ompi_bmtree(int p, int root, Serve serve);
// k-nomial, radix k (Open MPI's knomial broadcast, MVAPICH's intra-node k-nomial that SMPI's ompi
// selector runs): the children of v are v + j k^l (j = 1..k-1) for every k^l below the largest
// power of k dividing v, highest level first; `per_level`: one batch per level (MVAPICH), else
// as `serve` says.
RankTree knomial_tree(int p, int root, int radix, bool per_level, Serve serve);
// Open MPI's k-ary tree (ompi_coll_base_topo_build_tree: level by level, the children of v at
// level l are v + (i + 1) fanout^l, i < fanout).
RankTree kary_tree(int p, int root, int fanout, Serve serve);
// Open MPI's chains (ompi_coll_base_topo_build_chain): `chains` chains of consecutive relative
// ranks below the root (the first (p - 1) mod chains of them one longer); 1 is the pipeline.
RankTree chain_tree(int p, int root, int chains, Serve serve);
// Open MPI's in-order binary tree (ompi_coll_base_topo_build_in_order_bintree), rooted at p - 1.
RankTree in_order_binary_tree(int p, Serve serve);
// The root serves every other rank itself, in `children` order (Open MPI's linear reduce receives
// from p - 1 down to 0, its linear broadcast sends to all at once).
RankTree flat_tree(int p, int root, const std::vector<int>& children, Serve serve);

struct TreeTransfer {
  int segments = 1;  // S, each of segment_bytes
  double segment_bytes = 0;
  // Unsegmented trees whose edges carry different amounts (a scatter's subtrees, a gather's
  // portions): edge_bytes[r] is what travels between r and its parent. Empty: segment_bytes.
  std::vector<double> edge_bytes;
  double eager_bytes = 0;  // see the file comment
  bool reduce = false;     // reductions: the receiver reduces what it receives (gamma per byte)
  // Segments a rank has in flight on one edge at once (Open MPI's trees post the next segment's
  // receive before waiting for the current one: 2). From the second segment on, a segment then
  // costs its transfer time over this many, but never less than its bandwidth term: the latency
  // of one overlaps the transfer of the other. 1: the cost model's one message at a time.
  int in_flight = 1;
};

// Finish time of every rank of a broadcast down `t` (or a scatter, with edge_bytes) that rank r
// enters at ready[r]; the root holds the data when it enters.
std::vector<double> tree_bcast_finish(const GeneratorInput& in, const RankTree& t,
                                      const TreeTransfer& x, const std::vector<double>& ready);
// Finish time of every rank of a reduction (x.reduce) or gather up `t` that rank r enters at
// ready[r]; the root's is when it holds the whole result.
std::vector<double> tree_reduce_finish(const GeneratorInput& in, const RankTree& t,
                                       const TreeTransfer& x, const std::vector<double>& ready);

}  // namespace papcoll::estimate
