// The measurement (docs/calibration.md, "What is measured"): a short collective ping-pong within a
// time budget that separates links within a node from links between nodes, and the local
// reduction speed per datatype class. The plan (who pairs with whom, when to stop) is
// calibration_plan.hpp.
#pragma once

#include <mpi.h>

#include <vector>

#include "calibration/network_params.hpp"
#include "executor/mpi_status.hpp"
#include "model/node_layout.hpp"

namespace papcoll {

// Collective over `comm` (papcoll's private duplicate: tags cannot meet the application's).
// `nodes` is the communicator's node layout, identical on every rank. budget_s bounds the
// time from the first ping-pong to the last (each loop stops at most one step past its share).
//
//  1. Every rank times MPI_Reduce_local (MPI_SUM) on 64 KiB of float, double and int (the
//     fastest of a few runs, per byte).
//  2. Within nodes (if a node holds two ranks or more), then between nodes (if there are two
//     nodes or more): disjoint pairs ping-pong concurrently, 0 bytes both ways and m bytes one
//     way (m from 64 KiB, x4 until beta is visible over the latency, at most 4 MiB); per pair
//     alpha = median small round trip / 2, beta = (median large - median small) / m.
//  3. Rank 0 gathers every pair's estimates and every rank's gammas, takes the medians and
//     broadcasts the result: every rank ends with rank 0's doubles, bit for bit (agreed, not
//     assumed: an all-reduce's result may differ in its last bits between ranks).
// `seconds` is rank 0's time from `started` (MPI_Wtime, by default now) to the gather's end, and
// travels with the values.
MpiStatus measure_network(MPI_Comm comm, const NodeLayout& layout, double budget_s,
                          NetworkParams* out, double started = -1);

}  // namespace papcoll
