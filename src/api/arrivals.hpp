// Arrival times as every rank will see them. Generators must get bit-identical input on all ranks
// or their schedules disagree and the run deadlocks, so unless the caller vouches for that, rank
// 0's vector is broadcast.
#pragma once

#include <vector>

#include "executor/comm_context.hpp"
#include "papcoll/papcoll.h"

namespace papcoll {

// Fills `out` with the agreed vector of ctx.size entries, or clears it when opt.arrivals is NULL.
// Returns a papcoll code (PAPCOLL_ERR_ARRIVALS for a wrong count or a value that is not finite,
// the same on every rank). Collective over ctx.comm when opt.arrivals_agreed is 0.
// `values_checked`: the caller has found every agreed value finite already (the call's argument
// checks read them), so they are only copied; a broadcast vector is checked whatever it says.
int agree_arrivals(const papcoll_options& opt, const CommContext& ctx, const char* caller,
                   std::vector<double>* out, bool values_checked = false);

// The arrival vector of one call: the caller's opt.arrivals (agreed as above) when given, else
// `predicted`, the pattern the call's monitor agreed on (already identical on every rank by
// construction, see prediction/monitor.hpp; empty when there is no monitor or it knows nothing).
int call_arrivals(const papcoll_options& opt, const CommContext& ctx,
                  const std::vector<double>& predicted, const char* caller,
                  std::vector<double>* out, bool values_checked = false);

}  // namespace papcoll
