// Two-level collectives (docs/algorithms.md, "Two-level"): on nodes of several ranks, whose ranks
// share one link to the network and talk to each other over shared memory, a phase inside every
// node and one among the nodes' leaders, composed into one schedule (group_phase.hpp) that the
// verifier, the cost model and the executor read like any other. Arrival-aware at both levels:
// each node's leader is chosen per call from the arrivals, a late rank delays only its own node's
// part, and the phase among the leaders is an arrival-aware row over the nodes' ready times.
#pragma once

#include <string>
#include <vector>

#include "model/node_layout.hpp"
#include "schedule/group_phase.hpp"
#include "schedule/registry.hpp"

namespace papcoll {

// Who does what, from the layout and the arrivals (identical on every rank).
struct TwoLevelPlan {
  int nodes = 0;
  // Per node: its ranks, ascending; its leader; and its other ranks, earliest arrival first
  // (the first of them, the collector, gathers their part for the leader).
  std::vector<std::vector<int>> ranks, others;
  std::vector<int> leader;
  std::vector<int> node_of;  // rank -> node
  int largest = 1;           // most ranks on one node
};

// leader_last: the node's latest rank leads (reductions: the others' part is ready by the time
// it comes); else its earliest (broadcasts: it can pass data on first). A given `fixed` rank
// (the root of a rooted collective) leads its node. No layout: one rank per node.
TwoLevelPlan two_level_plan(const GeneratorInput& in, bool leader_last, int fixed = -1);

// The input of the phase among the leaders: p = nodes, the links between nodes, the leaders'
// ready times as arrivals (none when `ready` is empty), no layout.
GeneratorInput leaders_input(const GeneratorInput& in, const TwoLevelPlan& plan,
                             const std::vector<double>& ready);

// The cost parameters of the links inside a node (the links between nodes where not given).
CostParams intra_cost(const CostParams& c);

// Which registry row runs among the leaders for collective `c`: in.impl when it names one with an
// estimate, else the row with the least estimate among the rows `auto` may pick that plan in O(p
// log p) (no simulating row) on the leaders' input with the call's block count (in.blocks; where it
// is 0, each row with its own: the two-level row's block count is the count of the row so chosen).
const AlgorithmInfo* leaders_row(Collective c, const GeneratorInput& in,
                                 const GeneratorInput& leaders);

// The input of a phase inside a node of p ranks (its root first): one block of every block of the
// call (whole_buffer_map), the links inside a node.
GeneratorInput node_input(int p, int root, const GeneratorInput& in);

// The nodes that hold a rank `out` wants.
std::vector<int> wanted_nodes(const TwoLevelPlan& plan, const ScheduleSink& out);

// Inside every node with a wanted rank: the ranks but the leader reduce whole vectors to the
// first of them (a binomial tree), which hands the sum to the leader in the phase's last round.
// Returns the first round after the phase (the same on every rank: it depends on the largest
// node only).
int64_t emit_node_reduces(const GeneratorInput& in, const TwoLevelPlan& plan, ScheduleSink& out);

// Inside every node with a wanted rank: the leader broadcasts the buffer to the node's other ranks
// in node_broadcast_chunks chunks of blocks, each by a binomial tree from the round after the
// leader's last receive among the leaders that touches the chunk, where `row` on `leaders` with
// `among` is that phase (not before `first_round`). In whole buffers the node's last ranks got
// the result a tree's depth of 4 MiB messages after their leader (at 16 ranks a node, 2 ms of
// shared memory's 8 GB/s): chunks go out while the leaders' phase still delivers the later ones.
inline constexpr int kNodeBroadcastChunks = 8;
inline constexpr double kNodeChunkAlphas = 64;
// Up to kNodeBroadcastChunks and the call's blocks, each chunk at least kNodeChunkAlphas latencies
// of the links inside a node long (4 MiB at 8 GB/s and 0.5 us: 8 chunks; 256 KiB: one).
int node_broadcast_chunks(const GeneratorInput& in);
void emit_node_broadcasts(const GeneratorInput& in, const TwoLevelPlan& plan,
                          const AlgorithmInfo& row, const GeneratorInput& leaders,
                          const GroupPhase& among, int64_t first_round, ScheduleSink& out);

// The schedule-cache key of a two-level row: the row among the leaders, every node's order of
// ranks, and that row's own arrival key on the leaders' input.
std::string two_level_key(const TwoLevelPlan& plan, const AlgorithmInfo& row,
                          const GeneratorInput& leaders);

// The blocks as one message of them all: what the phases inside a node carry, whole vectors
// (the links there are an order of magnitude faster than the network).
std::vector<BlockSet> whole_buffer_map(int blocks);

}  // namespace papcoll
