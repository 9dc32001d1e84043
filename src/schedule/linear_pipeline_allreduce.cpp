// Segmented linear pipeline all-reduce and its sorted variant SLT (Proficz, Fig. 5). Block s travels
// order[0] -> ... -> order[p-1] being reduced, then order[p-1] -> order[0] -> ... -> order[p-2]
// being copied; consecutive blocks follow one round apart. SLT only changes the order: ranks sorted
// by arrival, so late ranks join the pipeline last (Fig. 6b).
#include "schedule/allreduce_generators.hpp"
#include "schedule/builder.hpp"

namespace papcoll {
namespace {

Schedule pipeline(const GeneratorInput& in, const std::vector<int>& order, const char* name) {
  const int p = in.p;
  ScheduleBuilder b(Collective::allreduce, name, p, in.blocks);
  if (p == 1) return std::move(b).build();
  for (int s = 0; s < in.blocks; ++s) {
    for (int id = 0; id + 1 < p; ++id)
      b.transfer(id + s, order[id], order[id + 1], {s}, Combine::reduce);
    b.transfer(p - 1 + s, order[p - 1], order[0], {s}, Combine::copy);
    for (int id = 0; id + 2 < p; ++id)
      b.transfer(p + s + id, order[id], order[id + 1], {s}, Combine::copy);
  }
  return std::move(b).build();
}

}  // namespace

Schedule linear_pipeline_allreduce_schedule(const GeneratorInput& in) {
  return pipeline(in, arrival_order(in.p, {}), "linear");
}

Schedule slt_allreduce_schedule(const GeneratorInput& in) {
  return pipeline(in, arrival_order(in.p, in.arrivals), "slt");
}

}  // namespace papcoll
