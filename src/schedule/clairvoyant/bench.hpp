// Generator benchmark of the three Clairvoyant implementations (Sect. 5.7 of "Improving
// Clairvoyant", Table 1): random instances, every implementation on the same instance one after
// the other in rotating order (so machine noise hits all alike), schedules cross-checked.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "schedule/clairvoyant/clairvoyant.hpp"

namespace papcoll::clairvoyant {

enum class Dist { uniform, skewed };
const char* dist_name(Dist d);
bool parse_dist(const std::string& s, Dist* out);

// Sect. 5.7: uniform: arrivals uniform in [0, P + 0.1], random root; skewed: all at 0 except
// process P-1 at N, root 0; both: d uniform in [0.001, 1].
Instance random_instance(int p, int segments, Dist dist, uint64_t seed);

struct BenchCell {
  Impl impl;
  int p = 0, segments = 0;
  Dist dist = Dist::uniform;
  int runs = 0;
  double mean_ms = 0, stddev_ms = 0;  // wall clock per generation
  double cpu_mean_ms = 0;             // CPU time of the generating thread
  double bits_per_pair = 0;           // state memory per (process, segment) pair
  double mean_transfers = 0;
};

struct BenchResult {
  std::vector<BenchCell> cells;  // per (p, dist), one per implementation, in the order asked
  bool identical = true;         // every implementation produced the same schedule on every run
  std::string mismatch;          // the first instance where they did not
};

// For each p in `ps` (segments = p when segments_fixed <= 0) and each distribution: `runs` random
// instances (seeded from `seed`, p and the run), one warm-up run each, then the timed runs.
BenchResult bench(const std::vector<int>& ps, int segments_fixed, const std::vector<Dist>& dists,
                  const std::vector<Impl>& impls, int runs, uint64_t seed);

// {"results":[{"impl":"segtree","p":512,"blocks":512,"dist":"uniform","runs":20,"mean_ms":...},
// ...],"ratios":[{"p":..,"blocks":..,"dist":..,"linear/segtree":..,...}],"identical":true}
std::string bench_json(const BenchResult& r);
std::string bench_text(const BenchResult& r);

}  // namespace papcoll::clairvoyant
