// An extra check for schedules that promise the single-port model of Clairvoyant (Sect. 4.2 of
// "Improving Clairvoyant"): in every round each rank sends at most one message and receives at
// most one, and never sends a block that it receives in the same round (the state P').
// verify_schedule() checks correctness for any schedule; this checks the stronger promise.
#pragma once

#include "schedule/schedule.hpp"
#include "verify/verifier.hpp"

namespace papcoll {

VerifyResult verify_single_port(const Schedule& s);

}  // namespace papcoll
