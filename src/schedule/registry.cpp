#include "schedule/registry.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <numeric>

#include "schedule/allgatherv_generators.hpp"
#include "schedule/allreduce_generators.hpp"
#include "schedule/bcast_generators.hpp"
#include "schedule/late_fold/late_fold.hpp"
#include "schedule/reduce_generators.hpp"
#include "schedule/scatter_gather/scatter_gather_generators.hpp"
#include "schedule/schedule_sink.hpp"

namespace papcoll {
namespace {

int blocks_one(int) { return 1; }

int ceil_log2(int p) {
  int q = 0;
  while ((1LL << q) < p) ++q;
  return q;
}
// Circulant broadcast: n - 1 + q rounds.
int circulant_bcast_blocks(const GeneratorInput& in) {
  return pipeline_blocks(in.bytes, ceil_log2(in.p) - 1, in.cost, kBroadcastBlockFactor);
}
// Circulant reduce: the broadcast's rounds, each with a reduction.
int circulant_reduce_blocks(const GeneratorInput& in) {
  return pipeline_blocks(in.bytes, ceil_log2(in.p) - 1, in.cost, kBroadcastBlockFactor);
}
// Arrival-aware broadcast: the early group's circulant at the Hockney optimum, like the circulant
// broadcast (kBroadcastBlockFactor); on gige-48 (4 MiB) the optimum (87 blocks) took 46 ms against
// 161 ms for the all-gatherv's factor's 6 (docs/circulant.md). One block when cores are shared.
int arrival_bcast_blocks(const GeneratorInput& in) {
  const int extra = ceil_log2(in.p) - 1;
  return pipeline_blocks(in.bytes, extra, in.cost, kBroadcastBlockFactor);
}
// Chain: n - 1 + (p - 1) rounds.
int chain_bcast_blocks(const GeneratorInput& in) {
  return pipeline_blocks(in.bytes, in.p - 2, in.cost, kBroadcastBlockFactor);
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

using enum Collective;
using enum AutoRole;

// Designated initialisers: a row names what it sets; everything else keeps AlgorithmInfo's default.
const AlgorithmInfo kAlgorithms[] = {
    // All-reduce (docs/algorithms.md, "All-reduce").
    {.name = "ring",
     .collective = allreduce,
     .summary = "ring reduce-scatter + ring allgather (Thakur et al. 2005)",
     .generate = ring_allreduce_schedule,
     .reorders_reduction = true,
     .auto_role = balanced,
     .predict = ring_allreduce_predict},
    {.name = "rabenseifner",
     .collective = allreduce,
     .summary = "recursive-halving reduce-scatter + recursive-doubling allgather, any p "
                "(Rabenseifner 2004)",
     .generate = rabenseifner_allreduce_schedule,
     .reorders_reduction = true,
     .auto_role = balanced,
     .predict = rabenseifner_allreduce_predict},
    {.name = "recursive-doubling",
     .collective = allreduce,
     .summary = "butterfly exchange of the whole vector, any p",
     .generate = recursive_doubling_allreduce_schedule,
     .default_blocks = blocks_one,
     .reorders_reduction = true,
     .auto_role = balanced,
     .predict = recursive_doubling_allreduce_predict},
    {.name = "linear",
     .collective = allreduce,
     .summary = "segmented linear pipeline in rank order (Open MPI's segmented linear tree)",
     .generate = linear_pipeline_allreduce_schedule,
     .reorders_reduction = true},
    {.name = "slt",
     .collective = allreduce,
     .summary = "sorted linear tree: the pipeline ordered by arrival time (Proficz, Fig. 5)",
     .generate = slt_allreduce_schedule,
     .reorders_reduction = true,
     .uses_arrivals = true,
     .arrival_key = slt_arrival_key,
     .auto_role = arrival_aware,
     .predict = slt_allreduce_predict},
    {.name = "prr",
     .collective = allreduce,
     .summary = "pre-reduced ring: ring ordered by arrival with pre-steps among early ranks "
                "(Proficz, Fig. 7)",
     .generate = prr_allreduce_schedule,
     .reorders_reduction = true,
     .uses_arrivals = true,
     .arrival_key = prr_arrival_key,
     .auto_role = arrival_aware,
     .predict = prr_allreduce_nodes_predict,
     .costed_on_nodes = true},
    {.name = "late-fold",
     .collective = allreduce,
     .summary = "early ranks reduce-scatter while the late ones compute, the late data makes one "
                "pass and the circulant broadcast spreads the result; PRR when that is faster",
     .generate = late_fold_allreduce_schedule,
     .sized_blocks = late_fold_blocks,
     .reorders_reduction = true,
     .uses_arrivals = true,
     .arrival_key = late_fold_allreduce_arrival_key,
     .auto_role = arrival_aware,
     .predict = late_fold_allreduce_predict,
     .generation_cost = late_fold_allreduce_generation_cost,
     .one_version = true,
     // From relay-fold's auto_min_p on, relay-fold has late-fold's shape without its global plan.
     // Above it `auto` under-charged that plan for a new pattern: gige-128, random lateness up to
     // 100 ms, auto 124.2 ms (late-fold in one of two iterations, 155 there) against PRR's 106.8
     // and the library's 116.5 (docs/algorithms.md, "relay-fold").
     .auto_max_p = 127},
    {.name = "relay-fold",
     .collective = allreduce,
     .summary = "early ranks reduce to a relay by Traff's round-optimal reduce while the late "
                "ones compute; the late data passes through the relay, which broadcasts the "
                "result by the circulant broadcast; Rabenseifner when nobody is late",
     .generate = relay_fold_allreduce_schedule,
     .sized_blocks = relay_fold_blocks,
     .reorders_reduction = true,
     .uses_arrivals = true,
     .arrival_key = relay_fold_allreduce_arrival_key,
     .auto_role = arrival_aware,
     .predict = relay_fold_allreduce_predict,
     // Below this late-fold (Clairvoyant's early reduce) was faster in SMPI: gige-48, one rank
     // 50 ms late, 91.9 ms against relay-fold's 96-108; at gige-128 relay-fold 143.0 against
     // late-fold's 155.0 (docs/algorithms.md, "relay-fold").
     .auto_min_p = 128},
    {.name = "two-level",
     .collective = allreduce,
     .summary = "inside each node a reduce to its latest rank, among the nodes' leaders the "
                "all-reduce row the estimate favours (on the nodes' ready times), inside each "
                "node a broadcast",
     .generate = two_level_allreduce_schedule,
     .sized_blocks = two_level_allreduce_blocks,
     .reorders_reduction = true,
     .uses_arrivals = true,
     .arrival_key = two_level_allreduce_arrival_key,
     .auto_role = arrival_aware,
     .predict = two_level_allreduce_predict,
     .topology_aware = true},
    {.name = "two-level-rsag",
     .collective = allreduce,
     .summary = "inside each node a reduce-scatter into a piece per rank, among the nodes one "
                "all-reduce per piece (the row the estimate favours, on the nodes' ready times), "
                "inside each node an all-gather",
     .generate = two_level_rsag_allreduce_schedule,
     .sized_blocks = two_level_rsag_allreduce_blocks,
     .reorders_reduction = true,
     .uses_arrivals = true,
     .arrival_key = two_level_rsag_allreduce_arrival_key,
     .auto_role = arrival_aware,
     .predict = two_level_rsag_allreduce_predict,
     .topology_aware = true},
    // Reduce (docs/algorithms.md "Reduce").
    {.name = "clairvoyant",
     .collective = reduce,
     .summary = "Clairvoyant: greedy segment exchange driven by known arrival times (Proficz & "
                "Ocetkiewicz 2021); implementations linear|pairing|segtree, same schedule",
     .generate = clairvoyant_reduce_schedule,
     .reorders_reduction = true,
     .uses_arrivals = true,
     .arrival_key = clairvoyant_arrival_key,
     .auto_role = arrival_aware,
     .predict = clairvoyant_reduce_predict,
     .generation_cost = clairvoyant_reduce_generation_cost},
    {.name = "late-fold",
     .collective = reduce,
     .summary = "early ranks reduce (Clairvoyant over their arrivals) while the late ones "
                "compute, the late data streams to the root in one pass",
     .generate = late_fold_reduce_schedule,
     .sized_blocks = late_fold_blocks,
     .reorders_reduction = true,
     .uses_arrivals = true,
     .arrival_key = late_fold_reduce_arrival_key,
     .auto_role = arrival_aware,
     .predict = late_fold_reduce_predict,
     .generation_cost = late_fold_reduce_generation_cost,
     .one_version = true},
    {.name = "relay-fold",
     .collective = reduce,
     .summary = "early ranks reduce by Traff's round-optimal reduce while the late ones compute, "
                "the late data streams to the root in one pass; Rabenseifner when nobody is late",
     .generate = relay_fold_reduce_schedule,
     .sized_blocks = relay_fold_reduce_blocks,
     .reorders_reduction = true,
     .uses_arrivals = true,
     .arrival_key = relay_fold_reduce_arrival_key,
     .auto_role = arrival_aware,
     .predict = relay_fold_reduce_predict,
     .auto_min_p = 128},  // as the all-reduce's

    {.name = "two-level",
     .collective = reduce,
     .summary = "inside each node a reduce to its latest rank (the root on its node), among the "
                "nodes' leaders the reduce row the estimate favours (on the nodes' ready times)",
     .generate = two_level_reduce_schedule,
     .sized_blocks = two_level_reduce_blocks,
     .reorders_reduction = true,
     .uses_arrivals = true,
     .arrival_key = two_level_reduce_arrival_key,
     .auto_role = arrival_aware,
     .predict = two_level_reduce_predict,
     .topology_aware = true},
    {.name = "binomial",
     .collective = reduce,
     .summary = "binomial tree, whole vector per message (MPICH binomial reduce)",
     .generate = binomial_reduce_schedule,
     .default_blocks = blocks_one,
     .reorders_reduction = true,
     .auto_role = balanced,
     .predict = binomial_reduce_predict,
     .one_version = true},
    {.name = "rabenseifner",
     .collective = reduce,
     .summary = "recursive-halving reduce-scatter + binomial gather to the root, any p "
                "(Rabenseifner 2004)",
     .generate = rabenseifner_reduce_schedule,
     .reorders_reduction = true,
     .auto_role = balanced,
     .predict = rabenseifner_reduce_predict},
    {.name = "radix-k",
     .collective = reduce,
     .summary = "radix-k reduce-scatter in groups of 2..8 + gather to the root (Peterka et al. "
                "2009)",
     .generate = radix_k_reduce_schedule,
     .reorders_reduction = true,
     .auto_role = balanced,
     .predict = radix_k_reduce_predict},
    {.name = "circulant",
     .collective = reduce,
     .summary = "round-optimal n-block reduce: Traff's circulant broadcast run backwards, "
                "n-1+ceil(log2 p) rounds",
     .generate = circulant_reduce_schedule,
     .sized_blocks = circulant_reduce_blocks,
     .reorders_reduction = true,
     .predict = circulant_reduce_predict,
     .one_version = true},
    {.name = "ring",
     .collective = reduce,
     .summary = "ring reduce-scatter + direct gather of the chunks to the root",
     .generate = ring_reduce_schedule,
     .reorders_reduction = true,
     .one_version = true},
    {.name = "linear",
     .collective = reduce,
     .summary = "flat: every rank sends its vector to the root, one per round",
     .generate = linear_reduce_schedule,
     .default_blocks = blocks_one,
     .reorders_reduction = true,
     .one_version = true},
    // Broadcast and allgather(v) (docs/circulant.md).
    {.name = "circulant",
     .collective = bcast,
     .summary = "round-optimal n-block broadcast on a circulant graph, n-1+ceil(log2 p) rounds "
                "(Traff 2023)",
     .generate = circulant_bcast_schedule,
     .sized_blocks = circulant_bcast_blocks,
     .auto_role = balanced,
     .predict = circulant_bcast_predict},
    {.name = "arrival-aware",
     .collective = bcast,
     .summary = "early ranks run the circulant broadcast, each late rank gets the buffer from a "
                "holder as it arrives (Patarasuk & Yuan 2008 with Traff 2023)",
     .generate = arrival_bcast_schedule,
     .sized_blocks = arrival_bcast_blocks,
     .uses_arrivals = true,
     .arrival_key = arrival_bcast_arrival_key,
     .auto_role = arrival_aware,
     .predict = arrival_bcast_predict},
    {.name = "two-level",
     .collective = bcast,
     .summary = "among the nodes' leaders (their earliest ranks) the broadcast row the estimate "
                "favours, inside each node a binomial tree",
     .generate = two_level_bcast_schedule,
     .sized_blocks = two_level_bcast_blocks,
     .uses_arrivals = true,
     .arrival_key = two_level_bcast_arrival_key,
     .auto_role = arrival_aware,
     .predict = two_level_bcast_predict,
     .topology_aware = true},
    {.name = "binomial",
     .collective = bcast,
     .summary = "binomial tree; with B > 1 blocks pipelined down the tree (segmented binomial)",
     .generate = binomial_bcast_schedule,
     .default_blocks = blocks_one},
    {.name = "scatter-allgather",
     .collective = bcast,
     .summary = "binomial scatter + ring allgather (van de Geijn, as in MPICH)",
     .generate = scatter_allgather_bcast_schedule},
    {.name = "chain",
     .collective = bcast,
     .summary = "pipelined chain in rank order from the root, p-2+B rounds",
     .generate = chain_bcast_schedule,
     .sized_blocks = chain_bcast_blocks},
    {.name = "circulant",
     .collective = allgatherv,
     .summary = "all-to-all broadcast on a circulant graph, n-1+ceil(log2 p) rounds (Traff 2023, "
                "Alg. 2)",
     .generate = circulant_allgatherv_schedule,
     .sized_blocks = circulant_allgatherv_blocks,
     .auto_role = balanced,
     .predict = circulant_allgatherv_predict},
    {.name = "arrival-aware",
     .collective = allgatherv,
     .summary = "early ranks run the circulant all-gatherv, late ranks join in waves: their "
                "portions broadcast, everything earlier sent to them in one message",
     .generate = arrival_allgatherv_schedule,
     .sized_blocks = circulant_allgatherv_blocks,
     .uses_arrivals = true,
     .arrival_key = arrival_allgatherv_arrival_key,
     .auto_role = arrival_aware,
     .predict = arrival_allgatherv_predict},
    {.name = "two-level",
     .collective = allgatherv,
     .summary = "portions to each node's latest rank, among the nodes' leaders the all-gatherv "
                "row the estimate favours (each node one origin), inside each node a binomial tree",
     .generate = two_level_allgatherv_schedule,
     .sized_blocks = two_level_allgatherv_blocks,
     .uses_arrivals = true,
     .arrival_key = two_level_allgatherv_arrival_key,
     .auto_role = arrival_aware,
     .predict = two_level_allgatherv_predict,
     .topology_aware = true},
    {.name = "ring",
     .collective = allgatherv,
     .summary = "ring allgather, p-1 rounds",
     .generate = ring_allgatherv_schedule,
     // No auto_role: with one rank per node the circulant rows are auto's; on nodes of several
     // ranks, where its ring crosses the network only between nodes, auto weighs it too.
     .predict = ring_allgatherv_predict,
     .costed_on_nodes = true},
    {.name = "bruck",
     .collective = allgatherv,
     .summary = "Bruck's concatenation allgather, ceil(log2 p) rounds, any p",
     .generate = bruck_allgatherv_schedule},
    {.name = "linear",
     .collective = allgatherv,
     .summary = "direct: every rank sends its portion to every other, p-1 rounds (auto on one "
                "node with shared memory)",
     .generate = linear_allgatherv_schedule,
     .sized_blocks = linear_allgatherv_blocks},
    // Scatterv and gatherv trees under a per-pair link model (docs/algorithms.md, "Scatterv and
    // gatherv"); auto is choose_sg_tree, not a row.
    {.name = "linear",
     .collective = scatterv,
     .summary = "flat: the root sends every portion directly, in rank order",
     .generate = sg_generator<scatterv, SgTreeKind::linear>},
    {.name = "binomial",
     .collective = scatterv,
     .summary = "binomial tree in rank order, a subtree's portions per message",
     .generate = sg_generator<scatterv, SgTreeKind::binomial>},
    {.name = "binomial-minfirst",
     .collective = scatterv,
     .summary = "binomial tree, each node the free rank with the smallest predicted "
                "t(parent, i, m_i) (Dichev et al. 2010)",
     .generate = sg_generator<scatterv, SgTreeKind::binomial_minfirst>,
     .uses_link_model = true},
    {.name = "binomial-maxfirst",
     .collective = scatterv,
     .summary = "binomial tree, each node the free rank with the largest predicted "
                "t(parent, i, m_i) (Dichev et al. 2010)",
     .generate = sg_generator<scatterv, SgTreeKind::binomial_maxfirst>,
     .uses_link_model = true},
    {.name = "traff",
     .collective = scatterv,
     .summary = "Traff's irregular tree from the portion sizes (Traff 2004)",
     .generate = sg_generator<scatterv, SgTreeKind::traff>},
    {.name = "traff-model",
     .collective = scatterv,
     .summary = "Traff's tree rebuilt on predicted link times (Dichev et al. 2010)",
     .generate = sg_generator<scatterv, SgTreeKind::traff_model>,
     .uses_link_model = true},
    {.name = "linear",
     .collective = gatherv,
     .summary = "flat: every portion goes directly to the root, in rank order",
     .generate = sg_generator<gatherv, SgTreeKind::linear>},
    {.name = "binomial",
     .collective = gatherv,
     .summary = "binomial tree in rank order, a subtree's portions per message",
     .generate = sg_generator<gatherv, SgTreeKind::binomial>},
    {.name = "binomial-minfirst",
     .collective = gatherv,
     .summary = "binomial tree, each node the free rank with the smallest predicted "
                "t(i, parent, m_i) (Dichev et al. 2010)",
     .generate = sg_generator<gatherv, SgTreeKind::binomial_minfirst>,
     .uses_link_model = true},
    {.name = "binomial-maxfirst",
     .collective = gatherv,
     .summary = "binomial tree, each node the free rank with the largest predicted "
                "t(i, parent, m_i) (Dichev et al. 2010)",
     .generate = sg_generator<gatherv, SgTreeKind::binomial_maxfirst>,
     .uses_link_model = true},
    {.name = "traff",
     .collective = gatherv,
     .summary = "Traff's irregular tree from the portion sizes (Traff 2004)",
     .generate = sg_generator<gatherv, SgTreeKind::traff>},
    {.name = "traff-model",
     .collective = gatherv,
     .summary = "Traff's tree rebuilt on predicted link times (Dichev et al. 2010)",
     .generate = sg_generator<gatherv, SgTreeKind::traff_model>,
     .uses_link_model = true},
};

}  // namespace

int default_block_count(const AlgorithmInfo& algo, const GeneratorInput& in) {
  return algo.sized_blocks != nullptr ? algo.sized_blocks(in) : default_blocks_for(algo, in.p);
}

int schedule_blocks(const AlgorithmInfo& algo, const GeneratorInput& in) {
  if (algo.collective == Collective::scatterv || algo.collective == Collective::gatherv)
    return in.p;
  return std::max(1, in.blocks);
}

namespace {

int schedule_root(const AlgorithmInfo& algo, const GeneratorInput& in) {
  if (algo.collective == Collective::allreduce || algo.collective == Collective::allgatherv)
    return -1;
  return in.root >= 0 ? in.root : 0;
}

}  // namespace

Schedule generate_schedule(const AlgorithmInfo& algo, const GeneratorInput& in) {
  Schedule s;
  s.collective = algo.collective;
  s.algorithm = algo.name;
  s.p = in.p;
  s.root = schedule_root(algo, in);
  s.blocks = schedule_blocks(algo, in);
  ScheduleSink sink(in.p, 0, in.p);
  algo.generate(in, sink);
  s.ranks = std::move(sink).take();
  return s;
}

RankSchedule generate_rank(const AlgorithmInfo& algo, const GeneratorInput& in, int rank) {
  ScheduleSink sink(in.p, rank, rank + 1);
  algo.generate(in, sink);
  return std::move(std::move(sink).take().front());
}

int pipeline_blocks(double bytes, int extra_rounds, const CostParams& cost, double factor) {
  if (extra_rounds <= 0 || !(bytes > 0) || !(cost.alpha > 0) || cost.cores_shared) return 1;
  const double overhead =
      std::isfinite(cost.step_overhead) && cost.step_overhead > 0 ? cost.step_overhead : 0.0;
  const double n = factor * std::sqrt(extra_rounds * cost.beta * bytes / (cost.alpha + overhead));
  if (!std::isfinite(n)) return 1;
  return static_cast<int>(std::clamp(std::llround(n), 1LL, 1LL << 20));
}

int64_t paced_send_bytes(const CostParams& cost) {
  if (!(cost.alpha > 0) || !(cost.beta > 0)) return kPacedBytesMost;
  const double bytes = std::ceil(cost.alpha / cost.beta);
  if (!std::isfinite(bytes)) return kPacedBytesMost;
  return std::clamp(static_cast<int64_t>(std::min(bytes, 1e18)), int64_t{1}, kPacedBytesMost);
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

namespace {
constexpr size_t kMergedRuns = 8;
}  // namespace

std::vector<int> arrival_order(int p, const std::vector<double>& arrivals) {
  std::vector<int> order(static_cast<size_t>(p));
  std::iota(order.begin(), order.end(), 0);
  if (static_cast<int>(arrivals.size()) != p) return order;
  if (p < 256) {
    // (time, rank) pairs sorted: ties by rank without a stable sort's extra work.
    std::vector<std::pair<double, int>> keyed(static_cast<size_t>(p));
    for (int r = 0; r < p; ++r) keyed[r] = {arrivals[r], r};
    std::sort(keyed.begin(), keyed.end());
    for (int i = 0; i < p; ++i) order[i] = keyed[i].second;
    return order;
  }
  // Every arrival-aware generator starts here on every call, so at scale a comparison sort of p
  // pairs was a tenth of PRR's per-rank time. Keys: an IEEE 754 double's bits, with the sign bit
  // flipped for non-negatives and every bit flipped for negatives, order as the values do (-0.0
  // is taken as 0.0, as the comparison does). Then a merge of a few runs (below) or an LSD radix
  // sort: stable passes over byte digits from the ranks in ascending order keep ties in rank
  // order; a digit that is the same for every rank (most of the exponent) needs no pass.
  const size_t n = static_cast<size_t>(p);
  std::vector<std::uint64_t> key(n), key_tmp(n);
  std::vector<int> order_tmp(n);
  for (size_t r = 0; r < n; ++r) {
    const double a = arrivals[r] + 0.0;  // -0.0 + 0.0 is +0.0
    std::uint64_t b = std::bit_cast<std::uint64_t>(a);
    b = (b >> 63) != 0 ? ~b : b | (std::uint64_t{1} << 63);
    key[r] = b;
  }
  // Patterns made of a few ascending runs (balanced: one; one late rank: two) are merged in
  // O(p * runs) instead: ranks ascend within a run and from run to run, so stable merges keep ties
  // in rank order.
  std::vector<size_t> run_starts{0};
  for (size_t r = 1; r < n && run_starts.size() <= kMergedRuns; ++r)
    if (key[r] < key[r - 1]) run_starts.push_back(r);
  if (run_starts.size() <= kMergedRuns) {
    auto by_key = [&key](int a, int b) {
      return key[static_cast<size_t>(a)] < key[static_cast<size_t>(b)];
    };
    for (size_t i = 1; i < run_starts.size(); ++i) {
      const size_t end = i + 1 < run_starts.size() ? run_starts[i + 1] : n;
      std::inplace_merge(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(run_starts[i]),
                         order.begin() + static_cast<std::ptrdiff_t>(end), by_key);
    }
    return order;
  }
  std::array<std::array<std::uint32_t, 256>, 8> count{};
  for (const std::uint64_t k : key)
    for (int d = 0; d < 8; ++d) ++count[d][(k >> (8 * d)) & 0xff];
  for (int d = 0; d < 8; ++d) {
    std::array<std::uint32_t, 256>& c = count[d];
    if (c[(key[0] >> (8 * d)) & 0xff] == n) continue;  // one digit value for every rank
    std::uint32_t sum = 0;
    for (std::uint32_t& v : c) sum += std::exchange(v, sum);
    for (size_t i = 0; i < n; ++i) {
      const std::uint32_t at = c[(key[i] >> (8 * d)) & 0xff]++;
      key_tmp[at] = key[i];
      order_tmp[at] = order[i];
    }
    key.swap(key_tmp);
    order.swap(order_tmp);
  }
  return order;
}

}  // namespace papcoll
