// All-reduce schedule generators (issue #2). Each takes GeneratorInput and returns a Schedule.
#pragma once

#include "schedule/registry.hpp"

namespace papcoll {

Schedule ring_allreduce_schedule(const GeneratorInput& in);
Schedule rabenseifner_allreduce_schedule(const GeneratorInput& in);
Schedule recursive_doubling_allreduce_schedule(const GeneratorInput& in);
Schedule linear_pipeline_allreduce_schedule(const GeneratorInput& in);
Schedule slt_allreduce_schedule(const GeneratorInput& in);
Schedule prr_allreduce_schedule(const GeneratorInput& in);

}  // namespace papcoll
