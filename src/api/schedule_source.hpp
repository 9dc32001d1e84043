// Where the executor's schedule comes from: the communicator's cache for algorithms whose
// schedule depends only on (algorithm, p, blocks, root), a fresh generation otherwise.
#pragma once

#include <memory>

#include "executor/comm_context.hpp"
#include "schedule/registry.hpp"

namespace papcoll {

// This rank's part of algo's schedule for `in`. Returns a papcoll code: PAPCOLL_ERR_INTERNAL when
// the generated schedule is malformed. The full symbolic verifier runs in debug builds or with
// PAPCOLL_VERIFY=1 in the environment; a cheap bounds check always runs, so a generator bug
// cannot make the executor index out of range.
int obtain_schedule(CommContext& ctx, const AlgorithmInfo& algo, const GeneratorInput& in,
                    const char* caller, std::shared_ptr<const RankSchedule>* out);

}  // namespace papcoll
