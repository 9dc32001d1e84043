// Generators describe an algorithm as a list of point-to-point transfers, each in a round; the
// builder turns them into per-rank steps. Matching sends and receives therefore exist by
// construction, and every consumer still re-checks them (verify/verifier.hpp).
#pragma once

#include <map>
#include <utility>
#include <vector>

#include "schedule/schedule.hpp"

namespace papcoll {

class ScheduleBuilder {
 public:
  ScheduleBuilder(Collective collective, std::string algorithm, int p, int blocks, int root = -1);

  // Adds one message from `from` to `to` in `round`; an empty block list adds nothing.
  void transfer(int round, int from, int to, std::vector<int> blocks, Combine combine);

  Schedule build() &&;

 private:
  Schedule schedule_;
  std::vector<std::map<int, Step>> steps_;  // per rank, by round
};

// The blocks [first, last) as a list.
std::vector<int> block_span(int first, int last);

// Block ids of chunk j when B blocks are dealt to `parts` consecutive chunks as evenly as possible
// (chunk j gets blocks [j*B/parts, (j+1)*B/parts)); empty when B < parts for some j.
std::vector<int> chunk_blocks(int blocks, int parts, int j);

}  // namespace papcoll
