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

}  // namespace papcoll
