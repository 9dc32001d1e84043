// PlanMemo (src/schedule/plan_memo.hpp): a plan is built once for an input and handed out again
// for an equal one; any field that differs, the tag, or a layout of its own builds it anew; the
// oldest of more than kKept inputs goes.
#include "schedule/plan_memo.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "model/node_layout.hpp"

namespace papcoll {
namespace {

struct CountedPlan {
  int built = 0;
  double first_arrival = 0;
};

class Builder {
 public:
  CountedPlan operator()(const GeneratorInput& in) {
    ++builds;
    return CountedPlan{builds, in.arrivals.empty() ? 0.0 : in.arrivals.front()};
  }
  int builds = 0;
};

GeneratorInput some_input() {
  GeneratorInput in;
  in.p = 8;
  in.blocks = 4;
  in.bytes = 4096;
  in.arrivals = {0.0, 0.001, 0, 0, 0, 0, 0, 0.002};
  in.nodes = std::make_shared<const NodeLayout>(block_node_layout(8, 4));
  return in;
}

TEST(PlanMemo, AnEqualInputGetsTheSamePlanBuiltOnce) {
  PlanMemo<CountedPlan> memo;
  Builder build;
  const GeneratorInput in = some_input();
  const auto first = memo.get(in, [&](const GeneratorInput& g) { return build(g); });
  const GeneratorInput copy = in;  // equal, not the same object
  const auto again = memo.get(copy, [&](const GeneratorInput& g) { return build(g); });
  EXPECT_EQ(build.builds, 1);
  EXPECT_EQ(first.get(), again.get());
}

TEST(PlanMemo, AnyDifferenceBuildsAnew) {
  PlanMemo<CountedPlan> memo;
  Builder build;
  auto get = [&](const GeneratorInput& in, PlanMemo<CountedPlan>::Tag tag = {}) {
    return memo.get(
        in, [&](const GeneratorInput& g) { return build(g); }, tag);
  };
  const GeneratorInput in = some_input();
  get(in);
  GeneratorInput later = in;
  later.arrivals[3] = 1e-9;
  EXPECT_EQ(get(later)->built, 2);
  GeneratorInput blocks = in;
  blocks.blocks = 5;
  EXPECT_EQ(get(blocks)->built, 3);
  EXPECT_EQ(get(in, {1, 0})->built, 4);  // another tag
  // An equal layout of its own: layouts are compared by identity, as the schedule caches do.
  GeneratorInput other_layout = in;
  other_layout.nodes = std::make_shared<const NodeLayout>(block_node_layout(8, 4));
  EXPECT_EQ(get(other_layout)->built, 5);
  EXPECT_EQ(build.builds, 5);
  // The last four are kept: `in` (tag 0) went when the fifth came.
  EXPECT_EQ(get(blocks)->built, 3);
  EXPECT_EQ(get(in)->built, 6);
}

TEST(PlanMemo, APlanThatReadsNoBlockCountIsSharedAcrossCounts) {
  PlanMemo<CountedPlan, /*kReadsBlocks=*/false> memo;
  Builder build;
  GeneratorInput in = some_input();
  memo.get(in, [&](const GeneratorInput& g) { return build(g); });
  in.blocks = 64;
  memo.get(in, [&](const GeneratorInput& g) { return build(g); });
  EXPECT_EQ(build.builds, 1);
  in.arrivals[2] = 0.5;
  memo.get(in, [&](const GeneratorInput& g) { return build(g); });
  EXPECT_EQ(build.builds, 2);
  // Built with no block count, whatever the caller's.
  in.arrivals[2] = 0.75;
  int built_with = -1;
  memo.get(in, [&](const GeneratorInput& g) {
    built_with = g.blocks;
    return build(g);
  });
  EXPECT_EQ(built_with, 0);
}

TEST(PlanMemo, ForgetPlansMakesEveryMemoBuildAnew) {
  PlanMemo<CountedPlan> memo;
  Builder build;
  const GeneratorInput in = some_input();
  memo.get(in, [&](const GeneratorInput& g) { return build(g); });
  forget_plans();
  memo.get(in, [&](const GeneratorInput& g) { return build(g); });
  memo.get(in, [&](const GeneratorInput& g) { return build(g); });
  EXPECT_EQ(build.builds, 2);
}

TEST(PlanMemo, ThePlanHandedOutOutlivesItsEviction) {
  PlanMemo<CountedPlan, true, 1> memo;
  Builder build;
  GeneratorInput in = some_input();
  const auto kept = memo.get(in, [&](const GeneratorInput& g) { return build(g); });
  in.arrivals[0] = 0.5;
  const auto next = memo.get(in, [&](const GeneratorInput& g) { return build(g); });
  EXPECT_EQ(kept->built, 1);
  EXPECT_EQ(kept->first_arrival, 0.0);
  EXPECT_EQ(next->first_arrival, 0.5);
}

}  // namespace
}  // namespace papcoll
