// papcoll-bench --counts-dist: how a scatterv/gatherv of --size elements is split among the ranks.
// Dichev, Rychkov and Lastovetsky (Sect. 3) gave "each node a message size based on its CPU speed
// (delivered by a trivial benchmark)", then used "a message size distribution with a larger ratio
// between maximal and minimal message size". Here (docs/papcoll-bench.md):
//   equal          every rank the same weight;
//   cpu-speed      weights = CPU speeds. The ranks of this benchmark usually share one machine,
//                  where a benchmark measures the same core (or the scheduler's noise) for every
//                  rank, so by default the speeds are deterministic stand-ins for a heterogeneous
//                  cluster: uniform in [1, 4) from --seed, the same on every platform and run;
//   cpu-speed:measure   the paper's way: every rank times a fixed floating-point loop (best of 5)
//                  and its speed is the inverse; the speeds are then exchanged, so all ranks agree;
//   ratio:R        weight of rank i = R^(i / (p - 1)): geometric from 1 to R, largest/smallest = R.
// A rank's count is its share of the total (largest remainders, ties to the lower rank).
#pragma once

#include <cstdint>
#include <vector>

#include "papcoll_bench_options.hpp"

namespace papcoll_bench {

// The p weights of `dist` (cpu_speed_measured: `measured_speeds`, gathered from every rank).
std::vector<double> counts_weights(CountsDist dist, double ratio, int p, std::uint64_t seed,
                                   const std::vector<double>& measured_speeds);

// Counts proportional to `weights` that add up to `total` exactly.
std::vector<int> proportional_counts(long long total, const std::vector<double>& weights);

// The trivial CPU benchmark: 1 / (seconds of a fixed floating-point loop, best of 5). Local.
double measure_cpu_speed();

}  // namespace papcoll_bench
