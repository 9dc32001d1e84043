// All-reduce schedule generators (registry.cpp). Each emits, for every rank its sink asks for,
// that rank's steps (schedule_sink.hpp); the B blocks are the even split of the buffer.
#pragma once

#include "schedule/registry.hpp"
#include "schedule/schedule_sink.hpp"

namespace papcoll {

void ring_allreduce_schedule(const GeneratorInput& in, ScheduleSink& out);
void rabenseifner_allreduce_schedule(const GeneratorInput& in, ScheduleSink& out);
void recursive_doubling_allreduce_schedule(const GeneratorInput& in, ScheduleSink& out);
void linear_pipeline_allreduce_schedule(const GeneratorInput& in, ScheduleSink& out);
void slt_allreduce_schedule(const GeneratorInput& in, ScheduleSink& out);
void prr_allreduce_schedule(const GeneratorInput& in, ScheduleSink& out);
// Late-fold (late_fold_allreduce.cpp): the early ranks reduce-scatter while the late ones compute,
// the late data makes one pass, the result spreads by the circulant broadcast.
void late_fold_allreduce_schedule(const GeneratorInput& in, ScheduleSink& out);
// Relay-fold (relay_fold_allreduce.cpp): late-fold's shape with Träff's reduce as the early phase,
// planned per rank in O(n + log p) after the O(p) arrival sort.
void relay_fold_allreduce_schedule(const GeneratorInput& in, ScheduleSink& out);
int relay_fold_blocks(const GeneratorInput& in);
// Two-level (two_level/two_level_allreduce.cpp): a reduce inside each node, an all-reduce row
// among the nodes' leaders, a broadcast inside each node.
void two_level_allreduce_schedule(const GeneratorInput& in, ScheduleSink& out);
std::string two_level_allreduce_arrival_key(const GeneratorInput& in);
double two_level_allreduce_predict(const GeneratorInput& in);
int two_level_allreduce_blocks(const GeneratorInput& in);
// Two-level by pieces (two_level/two_level_rsag_allreduce.cpp): a reduce-scatter inside each node,
// one all-reduce per piece among the nodes (a row on the nodes' ready times), an all-gather inside
// each node.
void two_level_rsag_allreduce_schedule(const GeneratorInput& in, ScheduleSink& out);
std::string two_level_rsag_allreduce_arrival_key(const GeneratorInput& in);
double two_level_rsag_allreduce_predict(const GeneratorInput& in);
int two_level_rsag_allreduce_blocks(const GeneratorInput& in);

// Their estimates for `auto` (AlgorithmInfo::predict, estimate.hpp).
double ring_allreduce_predict(const GeneratorInput& in);
double rabenseifner_allreduce_predict(const GeneratorInput& in);
double recursive_doubling_allreduce_predict(const GeneratorInput& in);
double slt_allreduce_predict(const GeneratorInput& in);
double prr_allreduce_predict(const GeneratorInput& in);
// PRR's row: prr_allreduce_predict, and on nodes of several ranks hop by hop along the arrival
// order (AlgorithmInfo::costed_on_nodes).
double prr_allreduce_nodes_predict(const GeneratorInput& in);
double late_fold_allreduce_predict(const GeneratorInput& in);
double relay_fold_allreduce_predict(const GeneratorInput& in);
// AlgorithmInfo::generation_cost: a Clairvoyant simulation of the early group per candidate.
double late_fold_allreduce_generation_cost(const GeneratorInput& in);

// The quantised arrivals the arrival-aware generators read (AlgorithmInfo::arrival_key).
std::string slt_arrival_key(const GeneratorInput& in);
std::string prr_arrival_key(const GeneratorInput& in);
std::string late_fold_allreduce_arrival_key(const GeneratorInput& in);
std::string relay_fold_allreduce_arrival_key(const GeneratorInput& in);

}  // namespace papcoll
