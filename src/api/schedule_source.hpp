// Where the executor's schedule comes from: the communicator's cache (schedule_cache.hpp), keyed on
// everything the schedule depends on (algorithm, blocks, root; the quantised arrivals of an
// arrival-aware algorithm; the portion sizes and links of the scatterv/gatherv trees), else this
// rank's part freshly generated (generate_rank: no other rank's steps are built).
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

// The same for a scatterv/gatherv tree (collective c): `algo` is a registry row of c, or null for
// "auto", which takes choose_sg_tree's choice (cached under the same key, so a repeated call
// neither builds the six trees again nor generates the schedule). *used: the tree that runs.
int obtain_sg_schedule(CommContext& ctx, Collective c, const AlgorithmInfo* algo,
                       const GeneratorInput& in, const char* caller,
                       std::shared_ptr<const RankSchedule>* out, const AlgorithmInfo** used);

}  // namespace papcoll
