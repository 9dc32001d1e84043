#include "api/arrivals.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "error/error.hpp"
#include "error/hot_path.hpp"

namespace papcoll {

PAPCOLL_HOT int agree_arrivals(const papcoll_options& opt, const CommContext& ctx,
                               const char* caller, std::vector<double>* out, bool values_checked) {
  out->clear();
  if (opt.arrivals == nullptr) return PAPCOLL_SUCCESS;
  const int p = ctx.size;
  // Built only for a message: every call passes here, and the string is allocated.
  auto who = [caller] { return std::string(caller) + ": "; };
  auto bad_count = [&](int n) {
    return fail(PAPCOLL_ERR_ARRIVALS, who() + "arrivals_count is " + std::to_string(n) +
                                          " but the communicator has " + std::to_string(p) +
                                          " ranks");
  };
  if (opt.arrivals_agreed) {
    if (opt.arrivals_count != 0 && opt.arrivals_count != p) return bad_count(opt.arrivals_count);
    out->assign(opt.arrivals, opt.arrivals + p);
    if (values_checked) return PAPCOLL_SUCCESS;
  } else {
    // One message carries rank 0's count check along with the values, so a wrong count is
    // reported on every rank instead of only on rank 0 (which would leave the others waiting).
    std::vector<double> msg(static_cast<size_t>(p) + 1, 0.0);
    if (ctx.rank == 0) {
      msg[0] = opt.arrivals_count;
      if (opt.arrivals_count == 0 || opt.arrivals_count == p)
        std::copy(opt.arrivals, opt.arrivals + p, msg.begin() + 1);
    }
    const int rc = MPI_Bcast(msg.data(), p + 1, MPI_DOUBLE, 0, ctx.comm);
    if (rc != MPI_SUCCESS) return fail(PAPCOLL_ERR_MPI, who() + describe({rc, "MPI_Bcast"}));
    const int count0 = static_cast<int>(msg[0]);
    if (count0 != 0 && count0 != p) return bad_count(count0);
    out->assign(msg.begin() + 1, msg.end());
  }
  for (int i = 0; i < p; ++i)
    if (!std::isfinite((*out)[i]))
      return fail(PAPCOLL_ERR_ARRIVALS, who() + "arrivals[" + std::to_string(i) + "] is " +
                                            std::to_string((*out)[i]) + ", not a finite time");
  return PAPCOLL_SUCCESS;
}

PAPCOLL_HOT int call_arrivals(const papcoll_options& opt, const CommContext& ctx,
                              const std::vector<double>& predicted, const char* caller,
                              std::vector<double>* out, bool values_checked) {
  if (opt.arrivals != nullptr || predicted.empty())
    return agree_arrivals(opt, ctx, caller, out, values_checked);
  if (static_cast<int>(predicted.size()) != ctx.size)
    return fail(PAPCOLL_ERR_INTERNAL, std::string(caller) + ": the monitor's pattern has " +
                                          std::to_string(predicted.size()) + " entries for " +
                                          std::to_string(ctx.size) + " ranks");
  *out = predicted;
  return PAPCOLL_SUCCESS;
}

}  // namespace papcoll
