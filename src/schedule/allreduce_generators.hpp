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

// The quantised arrivals the arrival-aware generators read (AlgorithmInfo::arrival_key).
std::string slt_arrival_key(const GeneratorInput& in);
std::string prr_arrival_key(const GeneratorInput& in);

}  // namespace papcoll
