// papcoll_calibrate: settles a communicator's network parameters when the program chooses
// (docs/calibration.md), instead of at its first collective that reads them.
#include <cmath>
#include <string>

#include "api/collective_call.hpp"
#include "api/options.hpp"
#include "calibration/calibrate.hpp"

namespace papcoll {
namespace {

constexpr const char* kCalibrateWho = "papcoll_calibrate";

int calibrate(MPI_Comm comm, const papcoll_options* user_opt) {
  // check_comm: not null, not an intercommunicator; the options only for alpha, beta, gamma.
  CollectiveCall call(kCalibrateWho, Collective::allreduce);
  PAPCOLL_TRY(call.check_comm(comm));
  papcoll_options opt;
  if (std::string error; !read_user_options(user_opt, &opt, &error))
    return fail(PAPCOLL_ERR_ARG, std::string(kCalibrateWho) + ": " + error);
  for (double v : {opt.alpha, opt.beta, opt.gamma})
    if (!std::isfinite(v))
      return fail(PAPCOLL_ERR_ARG,
                  std::string(kCalibrateWho) + ": alpha, beta or gamma is not finite");
  CommContext* ctx = nullptr;
  if (MpiStatus s = comm_context(comm, &ctx); !s.ok()) return call.mpi_error(s);
  NetworkParams n;
  if (opt.alpha > 0 && opt.beta > 0) {
    // Every rank passes the same options (as for any collective), so no message is needed. They
    // name the links between nodes; on nodes of several ranks those inside a node are measured
    // (the two-level schedules and the node-aware cost model read them).
    if (ctx->schedule_nodes != nullptr && call.p() > 1)
      PAPCOLL_TRY(
          calibrate_network(ctx->comm, *ctx->nodes, ctx->nodes_overridden, kCalibrateWho, &n));
    const LinkParams measured_intra = n.intra;
    n.intra = n.inter = {opt.alpha, opt.beta};
    if (ctx->schedule_nodes != nullptr && measured_intra.known()) n.intra = measured_intra;
    if (opt.gamma > 0)
      for (double& g : n.gamma) g = opt.gamma;
    n.nodes = ctx->nodes->nodes();
    n.source = NetworkSource::options;
  } else if (call.p() > 1) {
    PAPCOLL_TRY(
        calibrate_network(ctx->comm, *ctx->nodes, ctx->nodes_overridden, kCalibrateWho, &n));
  }
  ctx->network = n;
  ctx->network_known = true;
  CollectiveCall::record_network(n, n.in_use(GammaClass::float64), n.source);
  return PAPCOLL_SUCCESS;
}

}  // namespace
}  // namespace papcoll

extern "C" int papcoll_calibrate(MPI_Comm comm, const papcoll_options* opt) {
  return papcoll::guarded_call(papcoll::kCalibrateWho,
                               [&] { return papcoll::calibrate(comm, opt); });
}
