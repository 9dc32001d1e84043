#include "api/schedule_source.hpp"

#include <cstdlib>
#include <cstring>
#include <string>

#include "api/error.hpp"
#include "papcoll/papcoll.h"
#include "verify/verifier.hpp"

namespace papcoll {
namespace {

bool full_verification() {
#ifndef NDEBUG
  return true;
#else
  static const bool on = [] {
    const char* v = std::getenv("PAPCOLL_VERIFY");
    return v != nullptr && std::strcmp(v, "1") == 0;
  }();
  return on;
#endif
}

// Everything the executor relies on to stay inside its arrays.
std::string bounds_problem(const Schedule& s, const GeneratorInput& in, int rank) {
  if (s.p != in.p || s.blocks != in.blocks || static_cast<int>(s.ranks.size()) != in.p)
    return "schedule shape differs from its input";
  for (const Step& st : s.ranks[rank].steps)
    for (const Op& op : st.ops) {
      if (op.peer < 0 || op.peer >= s.p || op.peer == rank)
        return "peer " + std::to_string(op.peer) + " out of range";
      for (int b : op.blocks)
        if (b < 0 || b >= s.blocks) return "block " + std::to_string(b) + " out of range";
    }
  return "";
}

}  // namespace

int obtain_schedule(CommContext& ctx, const AlgorithmInfo& algo, const GeneratorInput& in,
                    const char* caller, std::shared_ptr<const RankSchedule>* out) {
  if (!algo.uses_arrivals) {
    if (auto cached = ctx.cached_schedule(&algo, in.blocks, in.root)) {
      *out = std::move(cached);
      return PAPCOLL_SUCCESS;
    }
  }
  Schedule s = algo.generate(in);
  const std::string where = std::string(caller) + ": schedule of '" + algo.name + "' for p=" +
                            std::to_string(in.p) + ", blocks=" + std::to_string(in.blocks);
  if (full_verification()) {
    const VerifyResult v = verify_schedule(s);
    if (!v.ok) return fail(PAPCOLL_ERR_INTERNAL, where + " fails verification: " + v.error);
  }
  const std::string problem = bounds_problem(s, in, ctx.rank);
  if (!problem.empty()) return fail(PAPCOLL_ERR_INTERNAL, where + ": " + problem);
  auto mine = std::make_shared<const RankSchedule>(std::move(s.ranks[ctx.rank]));
  if (!algo.uses_arrivals) ctx.cache_schedule(&algo, in.blocks, mine, in.root);
  *out = std::move(mine);
  return PAPCOLL_SUCCESS;
}

}  // namespace papcoll
