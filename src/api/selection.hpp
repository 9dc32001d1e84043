// Which implementation a call uses: a schedule from the algorithm table, MPI's own collective
// ("native"), or papcoll's choice ("auto", also a NULL name).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "schedule/registry.hpp"

namespace papcoll {

struct Selection {
  bool is_auto = false;
  const AlgorithmInfo* algo = nullptr;  // nullptr (and not auto): the MPI library's collective
};

// False for a name that is neither in the table for `c` nor "auto"/"native".
bool resolve_algorithm(Collective c, const char* name, Selection* out);

// Every name resolve_algorithm accepts for `c`, table order first, separated by `sep`.
std::string algorithm_names(Collective c, const char* sep);

// Faraj et al.'s imbalance factor of an arrival pattern: the largest arrival difference over the
// time of one point-to-point message of the whole buffer (alpha + beta * bytes). 0 for an empty
// (balanced) pattern.
double imbalance_factor(const std::vector<double>& arrivals, const CostParams& cost, double bytes);

// "auto" for allreduce. MPI's collective for tiny vectors (a schedule cannot beat it when most
// blocks would be empty) and for non-commutative ops (every schedule reorders the reduction);
// the balanced algorithm (ring) when the predicted imbalance factor is below 1, PRR otherwise:
// from a spread of one whole-buffer message on, the paper's pre-steps have something to hide.
const AlgorithmInfo* choose_allreduce(int p, int64_t count, bool commutative,
                                      const std::vector<double>& arrivals,
                                      const CostParams& cost, double bytes);

}  // namespace papcoll
