// Which ranks of a communicator share a node (and so the node's network link and its memory). No
// MPI here: the communicator's context detects the layout once (MPI_Comm_split_type with
// MPI_COMM_TYPE_SHARED), agrees on it and caches it; generators, the cost model and `auto` read it
// from GeneratorInput::nodes. A null layout means one rank per node, the model papcoll had before
// it knew nodes.
#pragma once

#include <string>
#include <vector>

namespace papcoll {

struct NodeLayout {
  // node_of[r]: the node of rank r. Nodes are numbered 0.. in the order of their lowest rank, so
  // equal layouts have equal vectors on every rank.
  std::vector<int> node_of;

  int p() const { return static_cast<int>(node_of.size()); }
  int nodes() const {
    int n = 0;
    for (int v : node_of) n = v + 1 > n ? v + 1 : n;
    return n;
  }
  // Ranks of node `k`, ascending.
  std::vector<int> ranks_on(int k) const {
    std::vector<int> r;
    for (int i = 0; i < p(); ++i)
      if (node_of[i] == k) r.push_back(i);
    return r;
  }
  // Every node holds one rank: the layout says nothing a flat model does not.
  bool one_rank_per_node() const { return nodes() == p(); }
  // The bytes of node_of, for cache keys.
  std::string key() const {
    return std::string(reinterpret_cast<const char*>(node_of.data()), node_of.size() * sizeof(int));
  }
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

}  // namespace papcoll
