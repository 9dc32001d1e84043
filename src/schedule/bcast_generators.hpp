// Broadcast schedule generators (issue #5). Each takes GeneratorInput (p, blocks, root; root -1
// means 0) and returns a Schedule of collective bcast: the root starts with all blocks, every rank
// must end with all of them. Ranks are renumbered so that the root is virtual rank 0:
// v = (r - root) mod p.
#pragma once

#include "schedule/registry.hpp"

namespace papcoll {

// Träff's round-optimal circulant-graph broadcast (arXiv 2312.11236, Algorithm 1):
// n - 1 + q rounds.
Schedule circulant_bcast_schedule(const GeneratorInput& in);
// Binomial tree; with B > 1 blocks pipelined down the tree, one block per edge and round.
Schedule binomial_bcast_schedule(const GeneratorInput& in);
// van de Geijn: binomial scatter of p chunks, then ring allgather of the chunks.
Schedule scatter_allgather_bcast_schedule(const GeneratorInput& in);
// Pipelined chain 0 -> 1 -> ... -> p-1: p - 2 + B rounds.
Schedule chain_bcast_schedule(const GeneratorInput& in);

// The root a bcast generator uses: in.root, or 0 when none is given.
inline int bcast_root(const GeneratorInput& in) { return in.root >= 0 ? in.root : 0; }

}  // namespace papcoll
