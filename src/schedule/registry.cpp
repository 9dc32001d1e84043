#include "schedule/registry.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "schedule/allgatherv_generators.hpp"
#include "schedule/allreduce_generators.hpp"
#include "schedule/bcast_generators.hpp"
#include "schedule/reduce_generators.hpp"

namespace papcoll {
namespace {

int blocks_p(int p) { return p; }
int blocks_one(int) { return 1; }

const AlgorithmInfo kAlgorithms[] = {
    {"ring", Collective::allreduce, ring_allreduce_schedule, blocks_p, true, false,
     "ring reduce-scatter + ring allgather (Thakur et al. 2005)"},
    {"rabenseifner", Collective::allreduce, rabenseifner_allreduce_schedule, blocks_p, true, false,
     "recursive-halving reduce-scatter + recursive-doubling allgather, any p (Rabenseifner 2004)"},
    {"recursive-doubling", Collective::allreduce, recursive_doubling_allreduce_schedule,
     blocks_one, true, false, "butterfly exchange of the whole vector, any p"},
    {"linear", Collective::allreduce, linear_pipeline_allreduce_schedule, blocks_p, true, false,
     "segmented linear pipeline in rank order (Open MPI's segmented linear tree)"},
    {"slt", Collective::allreduce, slt_allreduce_schedule, blocks_p, true, true,
     "sorted linear tree: the pipeline ordered by arrival time (Proficz, Fig. 5)"},
    {"prr", Collective::allreduce, prr_allreduce_schedule, blocks_p, true, true,
     "pre-reduced ring: ring ordered by arrival with pre-steps among early ranks (Proficz, Fig. 7)"},
    // Reduce (issue #3; docs/algorithms.md "Reduce").
    {"clairvoyant", Collective::reduce, clairvoyant_reduce_schedule, blocks_p, true, true,
     "Clairvoyant: greedy segment exchange driven by known arrival times (Proficz & Ocetkiewicz "
     "2021); implementations linear|pairing|segtree, same schedule"},
    {"binomial", Collective::reduce, binomial_reduce_schedule, blocks_one, true, false,
     "binomial tree, whole vector per message (MPICH binomial reduce)"},
    {"rabenseifner", Collective::reduce, rabenseifner_reduce_schedule, blocks_p, true, false,
     "recursive-halving reduce-scatter + binomial gather to the root, any p (Rabenseifner 2004)"},
    {"radix-k", Collective::reduce, radix_k_reduce_schedule, blocks_p, true, false,
     "radix-k reduce-scatter in groups of 2..8 + gather to the root (Peterka et al. 2009)"},
    {"ring", Collective::reduce, ring_reduce_schedule, blocks_p, true, false,
     "ring reduce-scatter + direct gather of the chunks to the root"},
    {"linear", Collective::reduce, linear_reduce_schedule, blocks_one, true, false,
     "flat: every rank sends its vector to the root, one per round"},
    // Broadcast and allgather(v) (issue #5; docs/circulant.md).
    {"circulant", Collective::bcast, circulant_bcast_schedule, blocks_p, false, false,
     "round-optimal n-block broadcast on a circulant graph, n-1+ceil(log2 p) rounds (Traff 2023)"},
    {"binomial", Collective::bcast, binomial_bcast_schedule, blocks_one, false, false,
     "binomial tree; with B > 1 blocks pipelined down the tree (segmented binomial)"},
    {"scatter-allgather", Collective::bcast, scatter_allgather_bcast_schedule, blocks_p, false,
     false, "binomial scatter + ring allgather (van de Geijn, as in MPICH)"},
    {"chain", Collective::bcast, chain_bcast_schedule, blocks_p, false, false,
     "pipelined chain in rank order from the root, p-2+B rounds"},
    {"circulant", Collective::allgatherv, circulant_allgatherv_schedule, blocks_p, false, false,
     "all-to-all broadcast on a circulant graph, n-1+ceil(log2 p) rounds (Traff 2023, Alg. 2)"},
    {"ring", Collective::allgatherv, ring_allgatherv_schedule, blocks_p, false, false,
     "ring allgather, p-1 rounds"},
    {"bruck", Collective::allgatherv, bruck_allgatherv_schedule, blocks_p, false, false,
     "Bruck's concatenation allgather, ceil(log2 p) rounds, any p"},
};

}  // namespace

double block_round_time(const GeneratorInput& in) {
  const double block_bytes = in.blocks > 0 ? in.bytes / in.blocks : in.bytes;
  const double tau = in.cost.alpha + (in.cost.beta + in.cost.gamma) * block_bytes;
  return std::isfinite(tau) && tau > 1e-12 ? tau : 1e-12;
}

std::span<const AlgorithmInfo> all_algorithms() { return kAlgorithms; }

const AlgorithmInfo* find_algorithm(Collective c, std::string_view name) {
  for (const AlgorithmInfo& a : kAlgorithms)
    if (a.collective == c && name == a.name) return &a;
  return nullptr;
}

std::vector<const AlgorithmInfo*> algorithms_for(Collective c) {
  std::vector<const AlgorithmInfo*> v;
  for (const AlgorithmInfo& a : kAlgorithms)
    if (a.collective == c) v.push_back(&a);
  return v;
}

std::vector<int> arrival_order(int p, const std::vector<double>& arrivals) {
  std::vector<int> order(static_cast<size_t>(p));
  std::iota(order.begin(), order.end(), 0);
  if (static_cast<int>(arrivals.size()) != p) return order;
  std::stable_sort(order.begin(), order.end(),
                   [&](int x, int y) { return arrivals[x] < arrivals[y]; });
  return order;
}

}  // namespace papcoll
