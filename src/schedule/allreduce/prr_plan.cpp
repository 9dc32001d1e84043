#include "schedule/allreduce/prr_plan.hpp"

#include <algorithm>
#include <cmath>

#include "schedule/arrival_key.hpp"

namespace papcoll {

PrrPlan prr_plan(const GeneratorInput& in) {
  const int p = in.p;
  PrrPlan plan;
  plan.order = arrival_order(p, in.arrivals);
  plan.slot.assign(static_cast<size_t>(p), 0);
  if (static_cast<int>(in.arrivals.size()) != p) return plan;
  const double tau = prr_slot_time(in);
  const double first = in.arrivals[plan.order[0]];
  const long cap = 4L * p + 8;
  for (int i = 0; i < p; ++i) {
    const double s = std::floor((in.arrivals[plan.order[i]] - first) / tau + 1e-9);
    plan.slot[i] = std::isfinite(s) ? std::clamp<long>(static_cast<long>(std::min(s, 1e15)), 0, cap)
                                    : cap;
  }
  return plan;
}

double prr_slot_time(const GeneratorInput& in) {
  // A segment is a chunk of the B blocks dealt to p chunks: with B > p a hop carries B / p of
  // them, and the slot is the time of that hop, not of one block (Proficz's tau, Sec. 4, is one
  // segment's time; the paper has B = p).
  GeneratorInput chunks = in;
  chunks.blocks = std::max(1, std::min(in.blocks, in.p));
  return block_round_time(chunks);
}

std::string PrrPlan::key() const {
  std::string k;
  append_key(k, order);
  append_key(k, slot);
  return k;
}

std::vector<int> prr_pre_steps(const PrrPlan& plan) {
  const int p = static_cast<int>(plan.order.size());
  std::vector<int> k(static_cast<size_t>(p), 0);
  for (int i = p - 2; i >= 0; --i)
    k[i] = plan.slot[p - 1] - plan.slot[i + 1] >= k[i + 1] + 1 ? k[i + 1] + 1 : k[i + 1];
  return k;
}

std::vector<int> prr_segment_starts(const PrrPlan& plan) {
  const int p = static_cast<int>(plan.order.size());
  const std::vector<int> k = prr_pre_steps(plan);
  std::vector<int> sp(static_cast<size_t>(p), 0);
  for (int j = 0, i = 0; j < p; ++j) {
    while (i + k[i] < j) ++i;
    sp[j] = i;
  }
  return sp;
}

}  // namespace papcoll
