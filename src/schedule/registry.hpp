// The table of algorithms. Adding an algorithm = one generator file + one row in registry.cpp.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "schedule/schedule.hpp"

namespace papcoll {

// Hockney parameters, in seconds and bytes: a message of m bytes costs alpha + beta*m, reducing m
// bytes costs gamma*m.
struct CostParams {
  double alpha = 5e-6;
  double beta = 1e-9;
  double gamma = 2.5e-10;
};

// Everything a generator may depend on. Generators are pure functions of this struct: the same
// input gives the same schedule bit for bit on every rank.
struct GeneratorInput {
  int p = 1;
  int blocks = 1;
  int root = -1;
  std::vector<double> arrivals;  // seconds, one per rank; empty means all equal
  CostParams cost;
  double bytes = 0;  // size of the whole buffer, for algorithms that derive a round time from it
  // Round time d in seconds for round-based arrival-aware generators (Clairvoyant reduce);
  // <= 0 means block_round_time(*this).
  double round_time = 0;
  // Implementation choice for algorithms that have several interchangeable ones producing the same
  // schedule (clairvoyant: "linear", "pairing", "segtree"); empty means the algorithm's default.
  std::string impl;
};

// Time to transfer and reduce one block under the Hockney model: the paper's tau
// (allreduce-slt-prr Sec. 4). Never below a tiny positive value so divisions stay finite.
double block_round_time(const GeneratorInput& in);

using GeneratorFn = Schedule (*)(const GeneratorInput&);

struct AlgorithmInfo {
  const char* name;
  Collective collective;
  GeneratorFn generate;
  int (*default_blocks)(int p);
  bool reorders_reduction;  // needs a commutative op
  bool uses_arrivals;
  const char* summary;
};

std::span<const AlgorithmInfo> all_algorithms();
const AlgorithmInfo* find_algorithm(Collective c, std::string_view name);
std::vector<const AlgorithmInfo*> algorithms_for(Collective c);

// Positions sorted by arrival time, ties broken by rank; equal arrivals give the identity order.
std::vector<int> arrival_order(int p, const std::vector<double>& arrivals);

}  // namespace papcoll
