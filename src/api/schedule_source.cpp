#include "api/schedule_source.hpp"

#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include "error/error.hpp"
#include "papcoll/papcoll.h"
#include "schedule/scatter_gather/scatter_gather_generators.hpp"
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
std::string bounds_problem(const RankSchedule& rs, const GeneratorInput& in, int blocks, int rank) {
  if (rs.rank != rank) return "schedule of rank " + std::to_string(rs.rank);
  for (const Op& op : rs.ops) {
    if (op.peer < 0 || op.peer >= in.p || op.peer == rank)
      return "peer " + std::to_string(op.peer) + " out of range";
    if (!op.blocks.empty() && (op.blocks.front() < 0 || op.blocks.back() >= blocks))
      return "block " + std::to_string(op.blocks.back()) + " out of range";
  }
  return "";
}

// Generates this rank's part of algo's schedule for `in` and checks it.
int generate_checked(CommContext& ctx, const AlgorithmInfo& algo, const GeneratorInput& in,
                     const char* caller, std::shared_ptr<const RankSchedule>* out) {
  const std::string where = std::string(caller) + ": schedule of '" + algo.name +
                            "' for p=" + std::to_string(in.p) +
                            ", blocks=" + std::to_string(in.blocks);
  RankSchedule mine;
  if (full_verification()) {
    Schedule s = generate_schedule(algo, in);
    const VerifyResult v = verify_schedule(s);
    if (!v.ok) return fail(PAPCOLL_ERR_INTERNAL, where + " fails verification: " + v.error);
    mine = std::move(s.ranks[ctx.rank]);
  } else {
    mine = generate_rank(algo, in, ctx.rank);
  }
  const std::string problem = bounds_problem(mine, in, schedule_blocks(algo, in), ctx.rank);
  if (!problem.empty()) return fail(PAPCOLL_ERR_INTERNAL, where + ": " + problem);
  *out = std::make_shared<const RankSchedule>(std::move(mine));
  return PAPCOLL_SUCCESS;
}

}  // namespace

int obtain_schedule(CommContext& ctx, const AlgorithmInfo& algo, const GeneratorInput& in,
                    const char* caller, std::shared_ptr<const RankSchedule>* out) {
  if (ctx.last_schedule.find(algo.collective, &algo, in, out)) return PAPCOLL_SUCCESS;
  std::string key = schedule_key(algo.collective, &algo, in);
  if (ctx.schedules.find(key, out)) {
    ctx.last_schedule.keep(algo.collective, &algo, in, *out);
    return PAPCOLL_SUCCESS;
  }
  if (int rc = generate_checked(ctx, algo, in, caller, out); rc != PAPCOLL_SUCCESS) return rc;
  // Kept as the latest even before the cache admits it (its second sighting).
  if (ctx.schedules.offer(std::move(key), {*out, nullptr, in.link_model}) ||
      ScheduleCache::caching())
    ctx.last_schedule.keep(algo.collective, &algo, in, *out);
  return PAPCOLL_SUCCESS;
}

int obtain_sg_schedule(CommContext& ctx, Collective c, const AlgorithmInfo* algo,
                       const GeneratorInput& in, const char* caller,
                       std::shared_ptr<const RankSchedule>* out, const AlgorithmInfo** used) {
  std::string key = schedule_key(c, algo, in);
  if (const AlgorithmInfo* chosen = nullptr; ctx.schedules.find(key, out, &chosen)) {
    *used = algo != nullptr ? algo : chosen;
    return PAPCOLL_SUCCESS;
  }
  *used = algo != nullptr ? algo : choose_sg_tree(c, in).algorithm;
  if (*used == nullptr)
    return fail(PAPCOLL_ERR_INTERNAL, std::string(caller) + ": no tree algorithm registered");
  if (int rc = generate_checked(ctx, **used, in, caller, out); rc != PAPCOLL_SUCCESS) return rc;
  ctx.schedules.offer(std::move(key), {*out, *used, in.link_model});
  return PAPCOLL_SUCCESS;
}

}  // namespace papcoll
