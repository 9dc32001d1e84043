// Rounds of a round-robin tournament: how papcoll-model measures every pair of ranks with every
// rank busy, instead of p (p - 1) / 2 ping-pongs one after the other (the scheduling of
// CPM/MPIBlib's parallel point-to-point benchmarks: Lastovetsky, Rychkov, O'Flynn 2010). No MPI.
#pragma once

#include <utility>
#include <vector>

namespace papcoll {

// The circle method: p - 1 rounds for even p, p rounds for odd p (each round one rank sits out).
// Every unordered pair {a, b} meets in exactly one round, as (a, b) with a < b; no rank is in two
// pairs of a round. Deterministic: the same p gives the same rounds on every rank.
std::vector<std::vector<std::pair<int, int>>> round_robin_rounds(int p);

}  // namespace papcoll
