// PRR's transfer order (prr_allreduce.cpp, docs/algorithms.md "PRR as implemented"): the lanes
// every rank derives alone against the slot-by-slot simulation of the whole ring they replace. Both
// give every transfer a slot; the test checks that the lanes are a valid one-ported timetable and
// that the cost model predicts the same times for both.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "schedule/allreduce/prr_plan.hpp"
#include "schedule/allreduce_generators.hpp"
#include "test_schedules.hpp"
#include "verify/cost_model.hpp"
#include "verify/port_check.hpp"
#include "verify/verifier.hpp"

namespace papcoll {
namespace {

// The previous generator: per slot, every position forwards at most one segment to its successor,
// the one with the most hops left, then the lowest index, once both ends have arrived.
Schedule slot_simulation(const GeneratorInput& in) {
  const int p = in.p;
  ScheduleBuilder b(Collective::allreduce, "prr-simulation", p, in.blocks);
  if (p == 1) return std::move(b).build();
  const PrrPlan plan = prr_plan(in);
  const std::vector<int> sp = prr_segment_starts(plan);
  struct Segment {
    BlockSet blocks;
    int holder = 0, hops = 0;
    long ready = 0;
  };
  std::vector<Segment> segs;
  for (int j = 0; j < p; ++j) {
    Segment s;
    s.blocks = chunk_blocks(in.blocks, p, j);
    if (s.blocks.empty()) continue;
    s.holder = sp[j];
    s.ready = plan.slot[sp[j]];
    segs.push_back(std::move(s));
  }
  const int total_hops = 2 * (p - 1);
  size_t done = 0;
  for (long t = 0; done < segs.size(); ++t) {
    std::vector<int> pick(static_cast<size_t>(p), -1);
    for (size_t j = 0; j < segs.size(); ++j) {
      const Segment& s = segs[j];
      if (s.hops == total_hops || s.ready > t) continue;
      const int from = s.holder, to = (from + 1) % p;
      if (plan.slot[from] > t || plan.slot[to] > t) continue;
      const int cur = pick[from];
      if (cur < 0 || segs[cur].hops > s.hops) pick[from] = static_cast<int>(j);
    }
    for (int from = 0; from < p; ++from) {
      if (pick[from] < 0) continue;
      Segment& s = segs[pick[from]];
      const int to = (from + 1) % p;
      b.transfer(t, plan.order[from], plan.order[to], s.blocks,
                 s.hops < p - 1 ? Combine::reduce : Combine::copy);
      s.holder = to;
      s.ready = t + 1;
      if (++s.hops == total_hops) ++done;
    }
  }
  return std::move(b).build();
}

// Arrival patterns of the kinds the benchmarks use, in seconds.
std::vector<double> mixed_pattern(std::mt19937_64& rng, int p, double tau) {
  std::vector<double> a(static_cast<size_t>(p), 0.0);
  std::uniform_real_distribution<double> d(0, 3.0 * p * tau);
  switch (rng() % 4) {
    case 0: a[rng() % p] = d(rng); break;  // one late
    case 1:
      for (double& x : a) x = d(rng);
      break;  // random
    case 2:
      for (int i = 0; i < 3 && i < p; ++i) a[rng() % p] = d(rng);
      break;  // a few late
    default:
      for (int i = 0; i < p; ++i) a[i] = (i % 3 == 0) ? d(rng) / 3 : 0;
      break;
  }
  return a;
}

TEST(PrrLanes, SameFinishTimesAsTheSlotSimulation) {
  std::mt19937_64 rng(42);
  const auto& prr = *find_algorithm(Collective::allreduce, "prr");
  int differ = 0, cases = 0;
  double worst = 0, best = 2;
  for (int trial = 0; trial < 400; ++trial) {
    GeneratorInput in;
    in.p = 2 + static_cast<int>(rng() % 40);
    in.blocks = rng() % 4 == 0 ? 1 + static_cast<int>(rng() % (2 * in.p)) : in.p;
    in.bytes = 4.0 * (1 << 20);
    in.cost.alpha = 20e-6;
    in.cost.beta = 8e-9;
    in.cost.gamma = 1e-9;
    in.arrivals = mixed_pattern(rng, in.p, block_round_time(in));
    const Schedule lanes = generate_schedule(prr, in);
    ASSERT_TRUE(verify_schedule(lanes).ok);
    ASSERT_TRUE(verify_single_port(lanes).ok) << "p=" << in.p;
    const Schedule sim = slot_simulation(in);
    const auto bytes = static_cast<int64_t>(in.bytes);
    const double a = evaluate_cost(lanes, in.arrivals, in.cost, bytes).mean_elapsed;
    const double b = evaluate_cost(sim, in.arrivals, in.cost, bytes).mean_elapsed;
    ++cases;
    if (std::abs(a - b) > 1e-12 * b) ++differ;
    worst = std::max(worst, a / b);
    best = std::min(best, a / b);
    EXPECT_LE(a, b * (1 + 1e-9)) << "p=" << in.p << " blocks=" << in.blocks;
  }
  std::cout << "[ info ] lanes vs slot simulation: " << differ << " of " << cases
            << " patterns predict a different mean elapsed time; lanes / simulation from " << best
            << " to " << worst << "\n";
}

}  // namespace
}  // namespace papcoll
