// Allgather(v) schedule generators (registry.cpp). Block ids are global: the B blocks are owned by
// the p ranks in consecutive runs, block b belonging to rank b*p/B (the verifier's convention),
// i.e. rank o owns [ceil(o*B/p), ceil((o+1)*B/p)); with B = p*n every rank owns n blocks, rank o
// the blocks o*n .. o*n+n-1. Every rank must end with all B blocks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "schedule/registry.hpp"
#include "schedule/schedule_sink.hpp"

namespace papcoll {

// Träff's all-to-all broadcast on the circulant graph (arXiv 2312.11236, Algorithm 2): every rank
// broadcasts its blocks at the same time over the same n - 1 + q rounds.
void circulant_allgatherv_schedule(const GeneratorInput& in, ScheduleSink& out);
// Ring: p - 1 rounds, rank r forwards to r + 1 what it got from r - 1.
void ring_allgatherv_schedule(const GeneratorInput& in, ScheduleSink& out);
// Bruck et al.: ceil(log2 p) rounds, in round i rank r sends what it holds (origins r..r+2^i-1)
// to r - 2^i; works for any p.
void bruck_allgatherv_schedule(const GeneratorInput& in, ScheduleSink& out);
// Linear: p - 1 rounds, in round k - 1 every rank sends its own blocks to r + k (nothing is
// forwarded; the schedule of the shared-memory transport).
void linear_allgatherv_schedule(const GeneratorInput& in, ScheduleSink& out);
// Arrival-aware (arrival_allgatherv.cpp): the early ranks run the circulant all-gatherv among
// themselves, late ranks join in waves whose portions are broadcast and which receive everything
// gathered before them in one message.
void arrival_allgatherv_schedule(const GeneratorInput& in, ScheduleSink& out);
std::string arrival_allgatherv_arrival_key(const GeneratorInput& in);
// How many ranks its plan leaves out of the early group (0: the circulant schedule).
int arrival_allgatherv_late_ranks(const GeneratorInput& in);

// Two-level (two_level/two_level_allgatherv.cpp): portions to each node's leader, an all-gatherv
// row among the leaders, a binomial tree inside each node.
void two_level_allgatherv_schedule(const GeneratorInput& in, ScheduleSink& out);
std::string two_level_allgatherv_arrival_key(const GeneratorInput& in);
double two_level_allgatherv_predict(const GeneratorInput& in);
int two_level_allgatherv_blocks(const GeneratorInput& in);

// Estimates for `auto` (AlgorithmInfo::predict, estimate.hpp).
double circulant_allgatherv_predict(const GeneratorInput& in);
double arrival_allgatherv_predict(const GeneratorInput& in);
// The ring's, along the rank order hop by hop (ring_allgatherv.cpp): honest on nodes of several
// ranks too (AlgorithmInfo::costed_on_nodes).
double ring_allgatherv_predict(const GeneratorInput& in);

// First block owned by rank o: ceil(o*B/p).
inline int origin_first_block(int blocks, int p, int o) {
  return static_cast<int>((static_cast<int64_t>(o) * blocks + p - 1) / p);
}

// The blocks owned by rank o (possibly none when B < p).
inline BlockSet origin_blocks(int blocks, int p, int o) {
  return BlockSet::range(origin_first_block(blocks, p, o), origin_first_block(blocks, p, o + 1));
}

}  // namespace papcoll
