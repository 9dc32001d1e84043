// Where a communicator's network parameters come from (docs/calibration.md), decided once per
// communicator (at its first collective that reads them, or at papcoll_calibrate) and identical
// on every rank: rank 0 decides and broadcasts.
//
//  1. PAPCOLL_NETWORK=alpha,beta[,gamma]: those, for links of both kinds (source environment).
//     PAPCOLL_NETWORK=FILE: a link model file (papcoll-model measure, docs/model-format.md) for
//     the communicator's size; its median links within and between nodes (source model_file).
//     A value that cannot be used gives a warning and is ignored.
//  2. PAPCOLL_CALIBRATION=off: papcoll's defaults (source defaults).
//  3. PAPCOLL_CALIBRATION=auto (the default): an earlier result in this process for the same key,
//     else the cache file of the key if it is valid and for this key (source cache; a corrupt or
//     foreign file gives a warning and is measured over).
//  4. Otherwise (and always with PAPCOLL_CALIBRATION=always) the measurement
//     (calibration_measure.hpp, within PAPCOLL_CALIBRATION_BUDGET_MS), whose result rank 0
//     writes to the cache file (atomically: a temporary file renamed over it).
// The key (calibration_file.hpp): the sorted host names of the ranks, the communicator size and
// the MPI library's version string. The cache directory: PAPCOLL_CALIBRATION_CACHE, else
// $XDG_CACHE_HOME/papcoll, else $HOME/.cache/papcoll.
#pragma once

#include <mpi.h>

#include <string>

#include "calibration/network_params.hpp"
#include "model/node_layout.hpp"

namespace papcoll {

enum class CalibrationMode { automatic, always, off };

// The environment, read once per process (every rank must see the same values).
struct CalibrationSettings {
  CalibrationMode mode = CalibrationMode::automatic;
  double budget_s = 0.015;
  std::string cache_dir;  // empty: no cache file
  std::string network;    // PAPCOLL_NETWORK as given
  bool verbose = false;   // PAPCOLL_VERBOSE
  std::string problems;   // unusable values, warned about once by rank 0
};
const CalibrationSettings& calibration_settings();

// Collective over `comm` (papcoll's private duplicate of the user's communicator), whose node
// layout is `nodes` (the context's, src/executor/node_detection.hpp; `nodes_overridden` when it
// came from PAPCOLL_NODES, which then keys the cache file too). *out is identical on every rank
// afterwards. A papcoll code; the message names `who`.
int calibrate_network(MPI_Comm comm, const NodeLayout& nodes, bool nodes_overridden,
                      const char* who, NetworkParams* out);

// The cache file's path for a key (for the tests and docs): cache_dir/calibration-KEY.txt.
std::string calibration_cache_path(const std::string& dir, const std::string& key);

}  // namespace papcoll
