// The driver's side of a refusal settled on the call board (observe/refusal.hpp): the refusing
// rank takes the call as another rank published it (options and arguments) and runs it with
// stand-in data (allreduce and reduce: the op's identity; bcast: zeros at a root, a scratch
// buffer elsewhere; all-gatherv: zeros for its portion; docs/errors.md), and the code and message
// each outcome gives it. Also the other side: a rank told that its result holds another rank's
// stand-in data reads who and why from the board (peer_error, collective_driver.hpp).
#pragma once

#include "api/collective_driver.hpp"
#include "observe/call_watch.hpp"

namespace papcoll {

// This rank refused the call `watch` numbers with `code` (its message recorded). Returns the
// code, with a message saying how the refusal was settled (marked local unless every rank
// refused), or sets own->substituted: then `call` and `d` hold the call as another rank published
// it, with stand-ins, and the driver goes on.
int settle_on_board(CollectiveCall& call, CollectiveDescription& d, int code,
                    observe::CallWatch& watch, OwnError* own);

}  // namespace papcoll
