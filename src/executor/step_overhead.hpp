// What one step of papcoll's executor costs a rank beyond the network's latency
// (docs/calibration.md, "Step overhead"): posting its receives and sends, waiting for them, and the
// executor's own bookkeeping. A schedule of many short rounds pays it every round, which the links'
// alpha does not show where the network's latency is a microsecond: on opa-32x32's nodes at 128
// ranks PRR's 254 rounds took 3.85 ms against its estimate of 1.17 (10.5 us a round more than the
// links'), and `auto`, which took the estimate, ran it at 2.5 times the library's time. `auto` adds
// this to the latency of papcoll's candidates (select/selection.cpp); the library's collective is
// costed without it (its steps are the MPI library's own, whose per-message cost the links' alpha
// holds).
#pragma once

#include <mpi.h>

#include "executor/executor.hpp"
#include "executor/mpi_status.hpp"
#include "schedule/registry.hpp"

namespace papcoll {

// Rounds of the measurement: untimed ones first (first use of the executor's scratch, page faults),
// then timed ones.
inline constexpr int kStepOverheadWarmRounds = 4;
inline constexpr int kStepOverheadRounds = 16;

// Collective over `comm` (papcoll's private duplicate, MPI_ERRORS_RETURN). Every rank runs the
// same ring through the executor, kStepOverheadRounds rounds of one int to the next rank and from
// the previous one after kStepOverheadWarmRounds untimed ones, and *out is the slowest rank's time
// per round, seconds: identical on every rank (a maximum of doubles is exact; 0 for one rank). A
// ring's round waits for the rank before, so it is what a schedule's round costs where every rank
// has one send and one receive in it, the case of the many-round rows (ring, PRR).
MpiStatus measure_ring_round(MPI_Comm comm, ScratchBuffer& scratch, double* out);

// The step overhead of `cost` (CostParams::step_overhead) from a ring's measured round: what the
// round took beyond the latency of its slowest hop (the larger of cost's alpha and intra_alpha,
// which the estimates already charge), at least 0.
double step_overhead_from_round(double round_seconds, const CostParams& cost);

}  // namespace papcoll
