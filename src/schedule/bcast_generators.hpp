// Broadcast schedule generators (registry.cpp). Each takes GeneratorInput (p, blocks, root; root -1
// means 0) and emits the asked-for ranks' steps of a bcast: the root starts with all blocks, every
// rank must end with all of them. Ranks are renumbered so that the root is virtual rank 0:
// v = (r - root) mod p.
#pragma once

#include <string>

#include "schedule/registry.hpp"
#include "schedule/schedule_sink.hpp"

namespace papcoll {

// Träff's round-optimal circulant-graph broadcast (arXiv 2312.11236, Algorithm 1):
// n - 1 + q rounds.
void circulant_bcast_schedule(const GeneratorInput& in, ScheduleSink& out);
// Binomial tree; with B > 1 blocks pipelined down the tree, one block per edge and round.
void binomial_bcast_schedule(const GeneratorInput& in, ScheduleSink& out);
// van de Geijn: binomial scatter of p chunks, then ring allgather of the chunks.
void scatter_allgather_bcast_schedule(const GeneratorInput& in, ScheduleSink& out);
// Pipelined chain 0 -> 1 -> ... -> p-1: p - 2 + B rounds.
void chain_bcast_schedule(const GeneratorInput& in, ScheduleSink& out);
// Arrival-aware (arrival_bcast.cpp): the early ranks run the circulant broadcast among themselves,
// each late rank receives the whole buffer from a holder when it arrives.
void arrival_bcast_schedule(const GeneratorInput& in, ScheduleSink& out);
std::string arrival_bcast_arrival_key(const GeneratorInput& in);
// How many ranks its plan leaves out of the early group (0: the circulant schedule).
int arrival_bcast_late_ranks(const GeneratorInput& in);

// Two-level (two_level/two_level_bcast.cpp): a broadcast row among the nodes' leaders, a
// binomial tree inside each node.
void two_level_bcast_schedule(const GeneratorInput& in, ScheduleSink& out);
std::string two_level_bcast_arrival_key(const GeneratorInput& in);
double two_level_bcast_predict(const GeneratorInput& in);
int two_level_bcast_blocks(const GeneratorInput& in);

// Estimates for `auto` (AlgorithmInfo::predict, estimate.hpp).
double circulant_bcast_predict(const GeneratorInput& in);
double arrival_bcast_predict(const GeneratorInput& in);

// The root a bcast generator uses: in.root, or 0 when none is given.
inline int bcast_root(const GeneratorInput& in) { return in.root >= 0 ? in.root : 0; }

}  // namespace papcoll
