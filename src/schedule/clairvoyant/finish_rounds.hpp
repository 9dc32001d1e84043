// When each process is done in Clairvoyant's schedule, without its transfer list: what the cost
// estimates read (the Clairvoyant reduce's `predict`, late-fold's early group, whose candidate
// counts of late ranks each cost a simulation). `auto` asks for these estimates on every call
// with arrivals, and at p = 1024 a simulation takes a tenth of a second; the result is a pure
// function of the simulation's input as it reads it (clock.hpp: p, N, the root, each process's
// whole rounds and the order of the fractional times), so it is kept in a small process-wide
// cache under exactly that: a pattern that quantises alike costs its key and a lookup, as the
// schedule cache's repeated call does (docs/algorithms.md, "auto"). Being exact, the cache cannot
// make two ranks decide differently, whatever each has cached.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "schedule/clairvoyant/clairvoyant.hpp"

namespace papcoll::clairvoyant {

struct FinishRounds {
  int64_t transfer_rounds = 0;      // rounds that hold a transfer (Result::round_starts.size())
  std::vector<int64_t> last_round;  // per process: the round number of its last transfer, or -1
};

// Throws as run() does on an invalid instance.
std::shared_ptr<const FinishRounds> finish_rounds(const Instance& in);

// The model of a simulation's CPU time (AlgorithmInfo::generation_cost): seconds per process and
// segment. Measured with papcoll-sched time clairvoyant on the 2-core development VM (one core,
// Release): 59 ns at P = N = 64, 74 at 256, 117 at 1024, 300 at 4096 (memory traffic grows with
// the state); 1e-7 is the middle of the range where the charge decides anything.
constexpr double kSimulationSecondsPerCell = 1e-7;
inline double simulation_seconds(int p, int segments) {
  return kSimulationSecondsPerCell * static_cast<double>(p) * static_cast<double>(segments);
}

// Simulations run and cache hits since the start of the process (tests, papcoll-sched).
struct FinishRoundsStats {
  int64_t runs = 0, hits = 0;
};
FinishRoundsStats finish_rounds_stats();
// Empties the cache (papcoll-sched time measures a new pattern's generation on every call).
void clear_finish_rounds();

}  // namespace papcoll::clairvoyant
