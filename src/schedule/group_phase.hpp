// Schedules composed of phases: a generator run over a group of a larger schedule's ranks, its
// ranks, rounds and blocks mapped into the whole (schedule as data, composed). The two-level
// collectives run a phase inside every node and one among the nodes' leaders; the early phase of
// an arrival-aware row runs a balanced reduce over the ranks that arrive early. Each phase is an
// ordinary generator: the composed schedule is verified, costed and executed like any other, and
// a rank builds only its own steps, as every generator does (a phase asks its generator for the
// group members that the sink wants, nothing else).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "schedule/registry.hpp"
#include "schedule/schedule_sink.hpp"

namespace papcoll {

struct GroupPhase {
  // Member i of the phase is rank members[i] of the whole; the phase's input has p = size.
  std::span<const int> members;
  // Phase round t is round first_round + stride * t of the whole, so that a caller can place
  // other ops between the phase's rounds (stride > 1) or after its last one.
  int64_t first_round = 0;
  int64_t stride = 1;
  // Phase block b is block_map[b] of the whole (ascending across b); empty: the same block ids.
  std::span<const BlockSet> block_map;
  // Whether the phase's paced sends stay paced in the whole (docs/algorithms.md, "Paced sends").
  bool keep_pacing = true;
};

// Emits the ops of the wanted ranks among `g.members` of `generate` run on `in` (in.p must be
// g.members.size()) into `out`, mapped as `g` says. O(members + the wanted members' ops).
void emit_phase(GeneratorFn generate, const GeneratorInput& in, const GroupPhase& g,
                ScheduleSink& out);

// The schedule of member `index` of a phase alone (the whole's rank ids, rounds and blocks), for
// a caller that needs to know when another rank does what (a leader's rounds, say).
RankSchedule phase_rank(GeneratorFn generate, const GeneratorInput& in, const GroupPhase& g,
                        int index);

// Per block of a `blocks`-block schedule, the round of the rank's last receive that writes it
// (copy or reduce), -1 where none: from then on the rank holds its final value of the block.
std::vector<int64_t> last_receive_rounds(const RankSchedule& rs, int blocks);

// The last round in which the rank has an op, -1 if none.
inline int64_t last_round(const RankSchedule& rs) {
  return rs.steps.empty() ? -1 : rs.steps.back().round;
}

}  // namespace papcoll
