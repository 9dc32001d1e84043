// What the ranks of a call disagree on, read from the calls they published on the board
// (call_board.hpp BoardCall): the operation, the root, the algorithm, the op, the data (in the
// units every rank must agree on), the blocks and Hockney parameters, the arrival times and the
// portions. The watchdog's line names it (watchdog.hpp), and so does a call that failed inside MPI
// (a truncated message: the ranks' patterns differ). No MPI.
#pragma once

#include <string>
#include <vector>

#include "observe/call_board.hpp"

namespace papcoll::observe {

// The first field, in the order above, on which the ranks' calls differ, as "<field>: ranks 0-2
// <value>; rank 3 <value>"; "" when they agree. calls[r]: rank r's published call, or null where
// it is not known (not arrived, not readable, refused).
std::string disagreement(const std::vector<const BoardCall*>& calls);

// A published call's operation (BoardCall::collective) by name, `unknown` where it names none.
const char* collective_label(int collective, const char* unknown);

// "rank 3", "ranks 0, 2 and 5", "ranks 0-3 and 7".
std::string rank_list(const std::vector<int>& ranks);

}  // namespace papcoll::observe
