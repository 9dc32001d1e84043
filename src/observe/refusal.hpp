// A rank that refuses a call whose message pattern it cannot know (docs/errors.md, kind 3: a
// negative count, MPI_DATATYPE_NULL, an unknown algorithm, ...) settles it through the call board
// instead of leaving the others waiting: its slot says "refused call n, code, message", and it
// reads the others' slots until one of these holds:
//
//   substitute    another rank published call n (every rank does so after its argument checks,
//                 before any communication of the call): the refusing rank runs that call with
//                 stand-in data in place of its own arguments (api/refusal_join.cpp), so every
//                 rank returns, and the ranks whose result holds its stand-in data are told
//                 (Board::notify);
//   all_refused   every rank refused call n: nobody communicates, every rank returns its own
//                 error (an agreed refusal);
//   went_on       every other rank is past call n, and none shows it any more (they needed
//                 nothing from this rank): it returns alone.
//
// Ranks that have not reached call n yet are waited for (polled with a back-off from 20 us to
// 1 ms). The wait reads memory (shared boards) or slots with MPI_Get: no message is sent while
// calls are on time, and none per call.
#pragma once

#include <cstdint>
#include <vector>

#include "observe/call_board.hpp"
#include "observe/comm_observer.hpp"

namespace papcoll::observe {

enum class Settled { alone, substitute, all_refused, went_on };

// Another rank's call as published, with its arrays when it has any.
struct FoundCall {
  int rank = -1;
  BoardCall call{};
  CallArrays arrays;
};

// `seq`: the refused call (the board already says so). On substitute, *found is the call to run.
Settled settle_refusal(CommObserver& o, std::uint64_t seq, FoundCall* found);

// Call `seq` as rank `rank` published it, with its arrays (waits until it did). False when the
// rank refused it, or moved on without showing it any more.
bool published_call(CommObserver& o, std::uint64_t seq, int rank, FoundCall* found);

// Call `seq` as every rank published it (out[rank]; this rank's own entry is left as it is).
// Waits for each; false when one refused it or moved on without showing it.
bool published_calls(CommObserver& o, std::uint64_t seq, std::vector<BoardCall>* out);

}  // namespace papcoll::observe
