// How a node-wide exchange runs on this machine (docs/calibration.md, "Node exchange"): every
// rank of a node sending a piece to every other rank of its node at once, the phases inside a node
// of two-level-rsag (schedule/two_level/two_level_rsag_allreduce.cpp). The cost model gives each
// rank one port each way, so such an exchange of c ranks takes c - 1 messages of the links inside
// a node one after another, and every message pays the executor's step overhead. Neither need
// hold: where the receiving cores make the copies (a single-copy transport), or on a simulated node
// whose links inside are fat pipes, the copies run side by side, and a step posts all of its
// messages at once; where one memory bus carries them all they queue for it. So the exchange is
// timed once per communicator at two piece sizes and the cost model's exchange is the line through
// them (CostParams::exchange_alpha, exchange_beta).
#pragma once

#include <mpi.h>

#include <cstdint>

#include "executor/executor.hpp"
#include "executor/mpi_status.hpp"
#include "model/node_layout.hpp"

namespace papcoll {

// Exchanges of the measurement at each size: untimed ones first (first use of the buffer, page
// faults), then timed ones, back to back.
inline constexpr int kNodeExchangeWarm = 1;
inline constexpr int kNodeExchangeTimed = 3;
// The small piece: latency, posting and bookkeeping decide.
inline constexpr int64_t kNodeExchangeSmallPiece = 1024;

// The large piece each rank sends to each node-mate: bandwidth, not latency, decides (64 KiB is
// 8 us at 8 GB/s against a latency of about 0.5 us), at most 4 MiB in all per rank on a node of
// many ranks, at least 4 KiB.
int64_t node_exchange_piece_bytes(int largest_node);

// An exchange inside a node of `node_size` ranks as a line, each rank's time (node_size - 1)
// (alpha + beta m) for pieces of m bytes, through two measured points: `small_seconds` for pieces
// of `small` bytes and `large_seconds` for `large`. Both at least 0; both 0 when it cannot be
// told (one rank on the node, sizes not increasing, a time not positive and finite).
struct ExchangeLine {
  double alpha = 0;
  double beta = 0;
};
ExchangeLine node_exchange_line(double small_seconds, double large_seconds, int node_size,
                                int64_t small, int64_t large);

// Collective over `comm` (papcoll's private duplicate, MPI_ERRORS_RETURN), whose ranks `nodes`
// places: every rank of a node of several ranks exchanges pieces with each of its node-mates
// through the executor, at kNodeExchangeSmallPiece and at node_exchange_piece_bytes bytes
// (kNodeExchangeWarm untimed, then kNodeExchangeTimed timed exchanges each), and *out is the
// median of the ranks' alphas and of their betas (node_exchange_line from each one's own times
// and node; the lower median, gathered, so identical on every rank). Both 0 where no node holds
// several ranks, or where no buffer could be had on some rank.
MpiStatus measure_node_exchange(MPI_Comm comm, const NodeLayout& nodes, ScratchBuffer& scratch,
                                ExchangeLine* out);

}  // namespace papcoll
