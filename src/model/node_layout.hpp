// Which ranks of a communicator share a node (and so the node's network link and its memory). No
// MPI here: the communicator's context detects the layout once (MPI_Comm_split_type with
// MPI_COMM_TYPE_SHARED, src/executor/node_detection.hpp), agrees on it and caches it; generators,
// the cost model and `auto` read it from GeneratorInput::nodes. A null layout means one rank per
// node, the model papcoll had before it knew nodes.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace papcoll {

struct NodeLayout {
  // node_of[r]: the node of rank r. Nodes are numbered 0.. in the order of their lowest rank, so
  // equal layouts have equal vectors on every rank (node_layout_error checks it). Nodes may hold
  // different numbers of ranks and need not be contiguous.
  std::vector<int> node_of;

  // The helpers below are O(p) scans of node_of (none is on a call path: a call reads the
  // communicator's cached layout, and generators read it on a schedule cache miss).
  int p() const { return static_cast<int>(node_of.size()); }
  int nodes() const {
    int n = 0;
    for (int v : node_of) n = v + 1 > n ? v + 1 : n;
    return n;
  }
  // Ranks of node `k`, ascending; the first is the node's leader (its lowest rank).
  std::vector<int> ranks_on(int k) const;
  int node_size(int k) const;
  int leader(int k) const;  // lowest rank of node k, -1 if there is no such node
  // Position of rank r among its node's ranks (0 for the leader).
  int local_index(int r) const;
  std::vector<int> node_sizes() const;  // per node
  int largest_node() const;             // ranks on the largest node (0 when p = 0)
  int smallest_node() const;            // ranks on the smallest node (0 when p = 0)
  // Every node holds one rank: the layout says nothing a flat model does not.
  bool one_rank_per_node() const { return nodes() == p(); }
  bool single_node() const { return p() > 0 && nodes() == 1; }
  bool equal_nodes() const { return largest_node() == smallest_node(); }
  // Every node's ranks are consecutive.
  bool contiguous() const;

  // Short bytes, equal for two layouts exactly when they are equal, for cache keys: 'b' p k for
  // block_node_layout(p, k), 'c' and the node sizes when every node is contiguous, 'g' p and
  // node_of otherwise (integers as LEB128 varints: 1024 ranks in blocks of 16 take 5 bytes).
  std::string key() const;
  // For messages and logs: "48 ranks on 8 nodes of 6", "5 ranks on 2 nodes of 2 to 3 (not
  // contiguous)".
  std::string describe() const;

  bool operator==(const NodeLayout&) const = default;
};

// `nodes` nodes of `per_node` consecutive ranks each (the last one smaller when p is not a
// multiple), for tests, tools and PAPCOLL_NODES=block:K.
inline NodeLayout block_node_layout(int p, int per_node) {
  NodeLayout l;
  l.node_of.resize(static_cast<size_t>(p < 0 ? 0 : p));
  const int k = per_node < 1 ? 1 : per_node;
  for (int r = 0; r < p; ++r) l.node_of[r] = r / k;
  return l;
}

// Ranks with equal labels share a node, whatever the labels are (host ids, leaders' ranks).
NodeLayout node_layout_from_labels(std::span<const int64_t> labels);

// Empty when `l` is a valid layout (every node_of[r] >= 0, nodes numbered in the order of their
// lowest rank: node 0 holds rank 0, and a rank on a new node gets the next number), else why not.
std::string node_layout_error(const NodeLayout& l);

// PAPCOLL_NODES (docs/ARCHITECTURE.md, "Nodes"): the nodes of the `world` ranks of
// MPI_COMM_WORLD, to use instead of what MPI detects, so one machine can pretend to be several
// nodes (and a test can try nodes of unequal size). Forms:
//   block:K          K consecutive ranks per node, the last node holding the rest
//   cyclic:N         N nodes, rank i on node i mod N
//   sizes:A,B,...    consecutive nodes of A, B, ... ranks (they must add up to `world`)
//   list:L0,L1,...   rank i on the node labelled Li (`world` labels, non-negative integers)
// The layout, or nothing with *error saying what is wrong and which forms exist.
std::optional<NodeLayout> parse_node_spec(std::string_view text, int world, std::string* error);

}  // namespace papcoll
