#include "schedule/registry.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "schedule/allreduce_generators.hpp"

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
