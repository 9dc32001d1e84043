// papcoll-bench's yardstick delta = alpha + n beta: the Hockney time of one message of the whole
// buffer (n bytes), against which the post-arrival time P is quoted as P/delta
// (docs/papcoll-bench.md, "Figure of merit").
//
// Where alpha and beta come from is decided here and only here: today papcoll_options' --alpha /
// --beta, else papcoll's own defaults (CostParams). Measured (calibrated) parameters are to be
// added as one more source in delta_params().
#pragma once

#include <string>

#include "papcoll_bench_options.hpp"
#include "schedule/registry.hpp"

namespace papcoll_bench {

struct DeltaParams {
  double alpha_s = 0;          // seconds per message
  double beta_s_per_byte = 0;  // seconds per byte
  // "options" (both from --alpha/--beta), "papcoll-defaults" (neither given), or
  // "options+papcoll-defaults" (one of them given).
  std::string source;
};

// The parameters papcoll itself ran with: an option > 0 overrides papcoll's default, as in
// papcoll_options.
inline DeltaParams delta_params(const BenchOptions& o) {
  const papcoll::CostParams papcoll_defaults;
  DeltaParams d;
  d.alpha_s = o.alpha > 0 ? o.alpha : papcoll_defaults.alpha;
  d.beta_s_per_byte = o.beta > 0 ? o.beta : papcoll_defaults.beta;
  const int given = (o.alpha > 0 ? 1 : 0) + (o.beta > 0 ? 1 : 0);
  d.source = given == 2 ? "options" : given == 0 ? "papcoll-defaults" : "options+papcoll-defaults";
  return d;
}

// delta in ms for a whole buffer of `bytes` bytes.
inline double delta_ms(const DeltaParams& d, double bytes) {
  return (d.alpha_s + bytes * d.beta_s_per_byte) * 1e3;
}

}  // namespace papcoll_bench
