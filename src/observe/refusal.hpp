// A rank that refuses a call whose message pattern it cannot know (docs/errors.md, kind 3)
// settles it through the call board instead of leaving the others waiting forever: its slot
// says "refused call n, code, message", and it reads the others' slots until one of these holds:
//
//   join          a rank is in call n and published a descriptor the refusing rank can run
//                 (allreduce, reduce, bcast with a predefined datatype and op, no monitor, no
//                 arrival-time algorithm): the refusing rank runs that call with stand-in data
//                 (api/refusal_join.cpp), so every rank returns;
//   all_refused   every rank refused call n: nobody communicates, every rank returns its own
//                 error (an agreed refusal, as before);
//   not_joinable  a rank is in call n with a descriptor the refusing rank cannot run: it returns,
//                 and the others wait (the watchdog names the refusal);
//   went_on       a rank is past call n without a descriptor (its call moved no data).
//
// Ranks that have not reached call n yet are waited for. The wait reads memory (shared boards) or
// slots with MPI_Get: no message is sent while calls are on time, and none per call.
#pragma once

#include <cstdint>

#include "observe/call_board.hpp"
#include "observe/comm_observer.hpp"

namespace papcoll::observe {

enum class Settled { alone, join, all_refused, not_joinable, went_on };

// `seq`: the refused call (the board already says so). *d: the descriptor to join.
Settled settle_refusal(CommObserver& o, std::uint64_t seq, JoinDescriptor* d);

}  // namespace papcoll::observe
