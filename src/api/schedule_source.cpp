#include "api/schedule_source.hpp"

#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include "api/error.hpp"
#include "papcoll/papcoll.h"
#include "schedule/portions.hpp"
#include "schedule/scatter_gather_generators.hpp"
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

template <typename T>
void append_bytes(std::string& key, const T& v) {
  key.append(reinterpret_cast<const char*>(&v), sizeof v);
}

// The cache key of a schedule of collective c. The scatterv/gatherv trees depend on every
// portion's size and on the links (scatter_gather_generators.hpp), so their key carries the
// portion sizes as the generators see them (portion_bytes) and the link model, or alpha and beta.
ScheduleKey key_of(Collective c, const AlgorithmInfo* algo, const GeneratorInput& in) {
  ScheduleKey key{c, algo, in.blocks, in.root, {}, nullptr};
  if (c == Collective::scatterv || c == Collective::gatherv) {
    for (double b : portion_bytes(in)) append_bytes(key.input, b);
    if (in.link_model != nullptr) {
      key.link_model = in.link_model;
    } else {
      append_bytes(key.input, in.cost.alpha);
      append_bytes(key.input, in.cost.beta);
    }
  }
  return key;
}

// Generates algo's schedule for `in` and checks it; this rank's part in *out.
int generate_checked(CommContext& ctx, const AlgorithmInfo& algo, const GeneratorInput& in,
                     const char* caller, std::shared_ptr<const RankSchedule>* out) {
  Schedule s = algo.generate(in);
  const std::string where = std::string(caller) + ": schedule of '" + algo.name + "' for p=" +
                            std::to_string(in.p) + ", blocks=" + std::to_string(in.blocks);
  if (full_verification()) {
    const VerifyResult v = verify_schedule(s);
    if (!v.ok) return fail(PAPCOLL_ERR_INTERNAL, where + " fails verification: " + v.error);
  }
  const std::string problem = bounds_problem(s, in, ctx.rank);
  if (!problem.empty()) return fail(PAPCOLL_ERR_INTERNAL, where + ": " + problem);
  *out = std::make_shared<const RankSchedule>(std::move(s.ranks[ctx.rank]));
  return PAPCOLL_SUCCESS;
}

}  // namespace

int obtain_schedule(CommContext& ctx, const AlgorithmInfo& algo, const GeneratorInput& in,
                    const char* caller, std::shared_ptr<const RankSchedule>* out) {
  if (algo.uses_arrivals) return generate_checked(ctx, algo, in, caller, out);
  ScheduleKey key = key_of(algo.collective, &algo, in);
  if (auto cached = ctx.cached_schedule(key)) {
    *out = std::move(cached);
    return PAPCOLL_SUCCESS;
  }
  if (int rc = generate_checked(ctx, algo, in, caller, out); rc != PAPCOLL_SUCCESS) return rc;
  ctx.cache_schedule(std::move(key), *out);
  return PAPCOLL_SUCCESS;
}

int obtain_sg_schedule(CommContext& ctx, Collective c, const AlgorithmInfo* algo,
                       const GeneratorInput& in, const char* caller,
                       std::shared_ptr<const RankSchedule>* out, const AlgorithmInfo** used) {
  ScheduleKey key = key_of(c, algo, in);
  const AlgorithmInfo* chosen = nullptr;
  if (auto cached = ctx.cached_schedule(key, &chosen)) {
    *out = std::move(cached);
    *used = algo != nullptr ? algo : chosen;
    return PAPCOLL_SUCCESS;
  }
  *used = algo != nullptr ? algo : choose_sg_tree(c, in).algorithm;
  if (*used == nullptr)
    return fail(PAPCOLL_ERR_INTERNAL, std::string(caller) + ": no tree algorithm registered");
  if (int rc = generate_checked(ctx, **used, in, caller, out); rc != PAPCOLL_SUCCESS) return rc;
  ctx.cache_schedule(std::move(key), *out, *used);
  return PAPCOLL_SUCCESS;
}

}  // namespace papcoll
