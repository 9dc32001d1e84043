#include "schedule/registry.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "schedule/allgatherv_generators.hpp"
#include "schedule/allreduce_generators.hpp"
#include "schedule/bcast_generators.hpp"
#include "schedule/reduce_generators.hpp"
#include "schedule/scatter_gather_generators.hpp"

namespace papcoll {
namespace {

int blocks_p(int p) { return p; }
int blocks_one(int) { return 1; }

int ceil_log2(int p) {
  int q = 0;
  while ((1LL << q) < p) ++q;
  return q;
}
// Circulant broadcast: n - 1 + q rounds.
int circulant_bcast_blocks(const GeneratorInput& in) {
  return pipeline_blocks(in.bytes, ceil_log2(in.p) - 1, in.cost);
}
// Chain: n - 1 + (p - 1) rounds.
int chain_bcast_blocks(const GeneratorInput& in) {
  return pipeline_blocks(in.bytes, in.p - 2, in.cost);
}
// Circulant allgatherv: a round's message carries one block of every origin, about bytes / n in
// all, over n - 1 + q rounds; `blocks` counts every rank's n blocks.
int circulant_allgatherv_blocks(const GeneratorInput& in) {
  const int per_rank = pipeline_blocks(in.bytes, ceil_log2(in.p) - 1, in.cost);
  return in.p * std::max(1, std::min(per_rank, (1 << 22) / in.p));  // bounds the schedule size
}

// Linear allgatherv: n blocks per origin so that a reader over the shared-memory transport can
// copy a portion's first blocks while the origin still publishes the rest (blocks of about 256
// KiB, at most 64 per origin); over messages the schedule is the same with more, smaller
// messages.
int linear_allgatherv_blocks(const GeneratorInput& in) {
  double bytes = in.bytes / std::max(in.p, 1);  // equal portions unless counts say otherwise
  if (!in.counts.empty()) {
    long long largest = 0;
    for (long long c : in.counts) largest = std::max(largest, c);
    bytes = static_cast<double>(largest) * in.elem_bytes;
  }
  const double per_rank = std::clamp(std::ceil(bytes / (256 << 10)), 1.0, 64.0);
  return in.p * static_cast<int>(per_rank);
}

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
     "round-optimal n-block broadcast on a circulant graph, n-1+ceil(log2 p) rounds (Traff 2023)",
     circulant_bcast_blocks},
    {"binomial", Collective::bcast, binomial_bcast_schedule, blocks_one, false, false,
     "binomial tree; with B > 1 blocks pipelined down the tree (segmented binomial)"},
    {"scatter-allgather", Collective::bcast, scatter_allgather_bcast_schedule, blocks_p, false,
     false, "binomial scatter + ring allgather (van de Geijn, as in MPICH)"},
    {"chain", Collective::bcast, chain_bcast_schedule, blocks_p, false, false,
     "pipelined chain in rank order from the root, p-2+B rounds", chain_bcast_blocks},
    {"circulant", Collective::allgatherv, circulant_allgatherv_schedule, blocks_p, false, false,
     "all-to-all broadcast on a circulant graph, n-1+ceil(log2 p) rounds (Traff 2023, Alg. 2)",
     circulant_allgatherv_blocks},
    {"ring", Collective::allgatherv, ring_allgatherv_schedule, blocks_p, false, false,
     "ring allgather, p-1 rounds"},
    {"bruck", Collective::allgatherv, bruck_allgatherv_schedule, blocks_p, false, false,
     "Bruck's concatenation allgather, ceil(log2 p) rounds, any p"},
    {"linear", Collective::allgatherv, linear_allgatherv_schedule, blocks_p, false, false,
     "direct: every rank sends its portion to every other, p-1 rounds (auto on one node with "
     "shared memory)",
     linear_allgatherv_blocks},
    // Scatterv and gatherv trees under a per-pair link model (docs/algorithms.md, "Scatterv and
    // gatherv"); auto is choose_sg_tree, not a row.
    {"linear", Collective::scatterv, sg_generator<Collective::scatterv, SgTreeKind::linear>,
     blocks_p, false, false, "flat: the root sends every portion directly, in rank order"},
    {"binomial", Collective::scatterv, sg_generator<Collective::scatterv, SgTreeKind::binomial>,
     blocks_p, false, false, "binomial tree in rank order, a subtree's portions per message"},
    {"binomial-minfirst", Collective::scatterv,
     sg_generator<Collective::scatterv, SgTreeKind::binomial_minfirst>, blocks_p, false, false,
     "binomial tree, each node the free rank with the smallest predicted t(parent, i, m_i) "
     "(Dichev et al. 2010)",
     nullptr, true},
    {"binomial-maxfirst", Collective::scatterv,
     sg_generator<Collective::scatterv, SgTreeKind::binomial_maxfirst>, blocks_p, false, false,
     "binomial tree, each node the free rank with the largest predicted t(parent, i, m_i) "
     "(Dichev et al. 2010)",
     nullptr, true},
    {"traff", Collective::scatterv, sg_generator<Collective::scatterv, SgTreeKind::traff>,
     blocks_p, false, false, "Traff's irregular tree from the portion sizes (Traff 2004)"},
    {"traff-model", Collective::scatterv,
     sg_generator<Collective::scatterv, SgTreeKind::traff_model>, blocks_p, false, false,
     "Traff's tree rebuilt on predicted link times (Dichev et al. 2010)",
     nullptr, true},
    {"linear", Collective::gatherv, sg_generator<Collective::gatherv, SgTreeKind::linear>,
     blocks_p, false, false, "flat: every portion goes directly to the root, in rank order"},
    {"binomial", Collective::gatherv, sg_generator<Collective::gatherv, SgTreeKind::binomial>,
     blocks_p, false, false, "binomial tree in rank order, a subtree's portions per message"},
    {"binomial-minfirst", Collective::gatherv,
     sg_generator<Collective::gatherv, SgTreeKind::binomial_minfirst>, blocks_p, false, false,
     "binomial tree, each node the free rank with the smallest predicted t(i, parent, m_i) "
     "(Dichev et al. 2010)",
     nullptr, true},
    {"binomial-maxfirst", Collective::gatherv,
     sg_generator<Collective::gatherv, SgTreeKind::binomial_maxfirst>, blocks_p, false, false,
     "binomial tree, each node the free rank with the largest predicted t(i, parent, m_i) "
     "(Dichev et al. 2010)",
     nullptr, true},
    {"traff", Collective::gatherv, sg_generator<Collective::gatherv, SgTreeKind::traff>,
     blocks_p, false, false, "Traff's irregular tree from the portion sizes (Traff 2004)"},
    {"traff-model", Collective::gatherv,
     sg_generator<Collective::gatherv, SgTreeKind::traff_model>, blocks_p, false, false,
     "Traff's tree rebuilt on predicted link times (Dichev et al. 2010)",
     nullptr, true},
};

}  // namespace

int default_block_count(const AlgorithmInfo& algo, const GeneratorInput& in) {
  return algo.sized_blocks != nullptr ? algo.sized_blocks(in) : algo.default_blocks(in.p);
}

int pipeline_blocks(double bytes, int extra_rounds, const CostParams& cost) {
  if (extra_rounds <= 0 || !(bytes > 0) || !(cost.alpha > 0) || cost.cores_shared) return 1;
  const double n = kPipelineBlockFactor * std::sqrt(extra_rounds * cost.beta * bytes / cost.alpha);
  if (!std::isfinite(n)) return 1;
  return static_cast<int>(std::clamp(std::llround(n), 1LL, 1LL << 20));
}

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
