// Reduce schedule generators (registry.cpp). Each takes GeneratorInput (root -1 means 0; a root
// outside [0, p) throws std::invalid_argument) and emits the asked-for ranks' steps of a reduce.
#pragma once

#include <stdexcept>
#include <string>

#include "schedule/registry.hpp"
#include "schedule/schedule_sink.hpp"

namespace papcoll {

void binomial_reduce_schedule(const GeneratorInput& in, ScheduleSink& out);
void rabenseifner_reduce_schedule(const GeneratorInput& in, ScheduleSink& out);
void radix_k_reduce_schedule(const GeneratorInput& in, ScheduleSink& out);
void ring_reduce_schedule(const GeneratorInput& in, ScheduleSink& out);
void linear_reduce_schedule(const GeneratorInput& in, ScheduleSink& out);
void clairvoyant_reduce_schedule(const GeneratorInput& in, ScheduleSink& out);
std::string clairvoyant_arrival_key(const GeneratorInput& in);
// Late-fold (late_fold_reduce.cpp): the early ranks reduce while the late ones compute, the late
// data makes one pass to the root.
void late_fold_reduce_schedule(const GeneratorInput& in, ScheduleSink& out);
// Träff's round-optimal reduce: the circulant broadcast run backwards (circulant_reduce.cpp).
void circulant_reduce_schedule(const GeneratorInput& in, ScheduleSink& out);
// Relay-fold (relay_fold_reduce.cpp): late-fold's reduce with Träff's reduce as the early phase.
void relay_fold_reduce_schedule(const GeneratorInput& in, ScheduleSink& out);
std::string relay_fold_reduce_arrival_key(const GeneratorInput& in);
int relay_fold_reduce_blocks(const GeneratorInput& in);
// Two-level (two_level/two_level_reduce.cpp): a reduce inside each node, a reduce row among the
// nodes' leaders.
void two_level_reduce_schedule(const GeneratorInput& in, ScheduleSink& out);
std::string two_level_reduce_arrival_key(const GeneratorInput& in);
double two_level_reduce_predict(const GeneratorInput& in);
int two_level_reduce_blocks(const GeneratorInput& in);
std::string late_fold_reduce_arrival_key(const GeneratorInput& in);

// Their estimates for `auto` (AlgorithmInfo::predict, estimate.hpp).
double binomial_reduce_predict(const GeneratorInput& in);
double rabenseifner_reduce_predict(const GeneratorInput& in);
double radix_k_reduce_predict(const GeneratorInput& in);
double clairvoyant_reduce_predict(const GeneratorInput& in);
double late_fold_reduce_predict(const GeneratorInput& in);
double circulant_reduce_predict(const GeneratorInput& in);
double relay_fold_reduce_predict(const GeneratorInput& in);
// AlgorithmInfo::generation_cost of the two (Clairvoyant simulations).
double clairvoyant_reduce_generation_cost(const GeneratorInput& in);
double late_fold_reduce_generation_cost(const GeneratorInput& in);

// The root of a reduce: in.root, 0 when unset.
inline int reduce_root(const GeneratorInput& in) {
  const int root = in.root < 0 ? 0 : in.root;
  if (root >= in.p)
    throw std::invalid_argument("reduce root " + std::to_string(root) +
                                " out of range for p=" + std::to_string(in.p));
  return root;
}

}  // namespace papcoll
