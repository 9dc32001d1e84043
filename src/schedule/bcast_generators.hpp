// Broadcast schedule generators (registry.cpp). Each takes GeneratorInput (p, blocks, root; root -1
// means 0) and emits the asked-for ranks' steps of a bcast: the root starts with all blocks, every
// rank must end with all of them. Ranks are renumbered so that the root is virtual rank 0:
// v = (r - root) mod p.
#pragma once

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

// The root a bcast generator uses: in.root, or 0 when none is given.
inline int bcast_root(const GeneratorInput& in) { return in.root >= 0 ? in.root : 0; }

}  // namespace papcoll
