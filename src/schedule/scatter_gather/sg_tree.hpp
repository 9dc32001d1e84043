// A scatter/gather communication tree and what is derived from it. Every rank is a node; the edge
// parent -> child carries the portions of the child's whole subtree in one message. Scatter: a
// node receives its subtree's portions from its parent, keeps its own and sends each child its
// subtree's, one child after the other in `children` order. Gather is the same tree run backwards
// in time: a node receives from its children in the reverse order, then sends everything to its
// parent.
#pragma once

#include <string>
#include <vector>

#include "schedule/scatter_gather/sg_problem.hpp"
#include "schedule/schedule.hpp"
#include "schedule/schedule_sink.hpp"

namespace papcoll {

struct SgTree {
  int root = 0;
  std::vector<int> parent;                 // -1 for the root
  std::vector<std::vector<int>> children;  // per rank, in scatter send order
};

// An empty tree on p ranks (every rank its own root until add_child links it).
SgTree empty_sg_tree(int p, int root);
void add_child(SgTree& t, int parent, int child);

// Ranks from the root down, parents before children.
std::vector<int> top_down_order(const SgTree& t);
// The ranks of every rank's subtree, ascending (the blocks of the message into that rank).
std::vector<std::vector<int>> subtree_ranks(const SgTree& t);
// Edges on the longest root-to-leaf path.
int tree_depth(const SgTree& t);

// The steps of `t` for the ranks `out` asks for: scatterv when !problem.gather(), else gatherv.
// Rounds are one-ported slots: a node's k-th send is k slots after its receive.
void emit_tree_schedule(const SgTree& t, const SgProblem& problem, ScheduleSink& out);
// The whole schedule.
Schedule tree_schedule(const SgTree& t, const SgProblem& problem, const std::string& algorithm);

// The completion time the cost model (src/verify/cost_model.hpp) gives tree_schedule(t) when all
// ranks start at 0: one send and one receive at a time per rank, an edge of m bytes taking
// problem.edge_time(parent, child, m). Computed on the tree without building the schedule.
double predicted_tree_time(const SgTree& t, const SgProblem& problem);

}  // namespace papcoll
