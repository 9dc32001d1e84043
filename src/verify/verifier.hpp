// Symbolic verifier: runs a schedule on sets of contributions instead of data and checks that it
// is well formed and that the collective's postcondition holds. Used by the unit tests,
// `papcoll-sched verify`, and (cheaply) by nothing at run time.
#pragma once

#include <string>

#include "schedule/schedule.hpp"

namespace papcoll {

struct VerifyResult {
  bool ok = true;
  std::string error;  // first problem found, human readable
};

VerifyResult verify_schedule(const Schedule& s);

// Whether the rank's sends of each block all carry the same data, i.e. it never receives into a
// block between two sends of that block: what the shared-memory transport needs, which publishes
// a block once, at its first send (src/executor/shared_transport.hpp). A receive into a block
// after its last send is fine (Clairvoyant's root sends a segment of its own and later gets
// the segment's sum back).
bool one_version_schedule(const RankSchedule& rs);

}  // namespace papcoll
