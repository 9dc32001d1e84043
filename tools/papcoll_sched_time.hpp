// papcoll-sched time: what one call costs a rank to get its schedule, the way the API gets it
// (src/api/schedule_source.cpp): the first call generates the calling rank's part alone
// (generate_rank), a repeated call finds it in the communicator's schedule cache by its key. See
// docs/papcoll-sched.md.
#pragma once

#include <string>
#include <vector>

#include "schedule/registry.hpp"

namespace papcoll::sched_time {

struct Options {
  std::vector<int> ranks;  // the ranks to time; several: the maximum is reported
  int calls = 20;          // measurements per figure (the median is reported)
  bool json = false;
  std::string pattern = "balanced";  // for the report
};

// Times `algo` on `in` (p, blocks, root, arrivals set) and prints the report; returns the exit
// status.
int run(const AlgorithmInfo& algo, const GeneratorInput& in, const Options& opt);

// Counts heap allocations while a measurement runs (papcoll-sched replaces operator new).
struct AllocationCounter {
  static void start();
  static void stop();
  static long long bytes();        // allocated since start()
  static long long allocations();  // calls since start()
  static long long peak();         // highest live bytes above the level at start()
  static long long live();         // live bytes above the level at start()
};

}  // namespace papcoll::sched_time
