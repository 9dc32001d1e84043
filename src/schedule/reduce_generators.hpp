// Reduce schedule generators (issue #3). Each takes GeneratorInput (root -1 means 0; a root outside
// [0, p) throws std::invalid_argument) and returns a Schedule of collective reduce.
#pragma once

#include <stdexcept>
#include <string>

#include "schedule/registry.hpp"

namespace papcoll {

Schedule binomial_reduce_schedule(const GeneratorInput& in);
Schedule rabenseifner_reduce_schedule(const GeneratorInput& in);
Schedule radix_k_reduce_schedule(const GeneratorInput& in);
Schedule ring_reduce_schedule(const GeneratorInput& in);
Schedule linear_reduce_schedule(const GeneratorInput& in);
Schedule clairvoyant_reduce_schedule(const GeneratorInput& in);

// The root of a reduce: in.root, 0 when unset.
inline int reduce_root(const GeneratorInput& in) {
  const int root = in.root < 0 ? 0 : in.root;
  if (root >= in.p)
    throw std::invalid_argument("reduce root " + std::to_string(root) + " out of range for p=" +
                                std::to_string(in.p));
  return root;
}

}  // namespace papcoll
