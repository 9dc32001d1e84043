// papcoll-bench's yardstick delta = alpha + n beta: the Hockney time of one message of the whole
// buffer (n bytes), against which the post-arrival time P is quoted as P/delta
// (docs/papcoll-bench.md, "Figure of merit").
//
// Where alpha and beta come from is decided here and only here: the parameters papcoll itself
// runs with. papcoll-bench settles them before the sweep with papcoll_calibrate (--alpha/--beta
// when given, else the communicator's: measured, cached, PAPCOLL_NETWORK; docs/calibration.md)
// and reads them back with papcoll_last_network.
#pragma once

#include <string>

#include "papcoll/papcoll.h"
#include "papcoll_bench_options.hpp"
#include "schedule/registry.hpp"

namespace papcoll_bench {

struct DeltaParams {
  double alpha_s = 0;          // seconds per message
  double beta_s_per_byte = 0;  // seconds per byte
  // "options" (--alpha/--beta), "measured", "cache", "PAPCOLL_NETWORK", "model-file" (where
  // papcoll's parameters came from), or "papcoll-defaults".
  std::string source;
  double gamma_s_per_byte = 0;  // what papcoll runs with for float data (informational)
  int nodes = 0;                // nodes the communicator spans; 0: unknown
  // The communicator's links inside a node (papcoll_last_network's alpha_intra, beta_intra; 0:
  // none known), which papcoll's schedules on nodes of several ranks are costed with.
  double intra_alpha_s = 0, intra_beta_s_per_byte = 0;
  double calibration_s = 0;     // how long papcoll's measurement took (0: not measured)
  double calibrate_call_s = 0;  // papcoll_calibrate's whole call, the communicator's set-up
                                // included (rank 0's clock)
};

inline const char* network_source_label(int source) {
  switch (source) {
    case PAPCOLL_NET_MEASURED: return "measured";
    case PAPCOLL_NET_CACHE: return "cache";
    case PAPCOLL_NET_ENVIRONMENT: return "PAPCOLL_NETWORK";
    case PAPCOLL_NET_MODEL_FILE: return "model-file";
    case PAPCOLL_NET_OPTIONS: return "options";
    default: return "papcoll-defaults";
  }
}

// The parameters papcoll runs with, as papcoll_last_network reported them after
// papcoll_calibrate; without such a report (source PAPCOLL_NET_NONE), the options over papcoll's
// defaults.
inline DeltaParams delta_params(const BenchOptions& o, const papcoll_network_info& net) {
  DeltaParams d;
  const int given = (o.alpha > 0 ? 1 : 0) + (o.beta > 0 ? 1 : 0);
  if (net.source != PAPCOLL_NET_NONE) {
    // An option > 0 overrides the communicator's value in every call, as in papcoll_options.
    d.alpha_s = o.alpha > 0 ? o.alpha : net.alpha;
    d.beta_s_per_byte = o.beta > 0 ? o.beta : net.beta;
    d.gamma_s_per_byte = o.gamma > 0 ? o.gamma : net.gamma;
    const std::string comm = network_source_label(net.source);
    d.source = given == 2 ? "options" : given == 1 ? "options+" + comm : comm;
    d.nodes = net.nodes;
    d.intra_alpha_s = net.alpha_intra;
    d.intra_beta_s_per_byte = net.beta_intra;
    d.calibration_s = net.calibration_seconds;
    return d;
  }
  const papcoll::CostParams papcoll_defaults;
  d.alpha_s = o.alpha > 0 ? o.alpha : papcoll_defaults.alpha;
  d.beta_s_per_byte = o.beta > 0 ? o.beta : papcoll_defaults.beta;
  d.gamma_s_per_byte = o.gamma > 0 ? o.gamma : papcoll_defaults.gamma;
  d.source = given == 2 ? "options" : given == 0 ? "papcoll-defaults" : "options+papcoll-defaults";
  return d;
}

// delta in ms for a whole buffer of `bytes` bytes.
inline double delta_ms(const DeltaParams& d, double bytes) {
  return (d.alpha_s + bytes * d.beta_s_per_byte) * 1e3;
}

}  // namespace papcoll_bench
