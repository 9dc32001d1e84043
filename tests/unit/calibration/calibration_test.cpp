// The calibration's parts without MPI (docs/calibration.md): the plan (nodes, pairs, the
// budget), the parameters in use, PAPCOLL_NETWORK's values, link models summarised per link
// class, and the cache file format with its corrupt and foreign cases.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "calibration/calibration_file.hpp"
#include "calibration/calibration_plan.hpp"
#include "calibration/network_params.hpp"
#include "model/node_layout.hpp"

namespace papcoll {
namespace {

std::vector<std::uint64_t> hosts_of(const std::vector<int>& host_ids) {
  std::vector<std::uint64_t> h;
  for (int id : host_ids) h.push_back(fnv1a64("host-" + std::to_string(id)));
  return h;
}

// The plan's node_of: a layout's (node_layout_test.cpp has the layout itself).
std::vector<int> nodes_of_hosts(const std::vector<int>& host_ids) {
  const std::vector<int64_t> labels(host_ids.begin(), host_ids.end());
  return node_layout_from_labels(labels).node_of;
}

// Every pairing is symmetric, disjoint, of the right class, and has one initiator.
void check_pairs(const std::vector<int>& node_of, bool intra) {
  const int p = static_cast<int>(node_of.size());
  int paired = 0;
  for (int r = 0; r < p; ++r) {
    const Pairing a = intra ? intra_node_pair(node_of, r) : inter_node_pair(node_of, r);
    if (a.partner < 0) continue;
    ++paired;
    ASSERT_NE(a.partner, r);
    const Pairing b = intra ? intra_node_pair(node_of, a.partner)
                            : inter_node_pair(node_of, a.partner);
    EXPECT_EQ(b.partner, r);
    EXPECT_NE(a.initiator, b.initiator);
    EXPECT_EQ(a.initiator, r < a.partner);
    EXPECT_EQ(node_of[r] == node_of[a.partner], intra);
  }
  EXPECT_EQ(paired % 2, 0);
}

TEST(CalibrationPlan, PairsWithinAndBetweenNodes) {
  for (const auto& hosts : std::vector<std::vector<int>>{{0, 0, 0, 0},
                                                         {0, 1, 2, 3},
                                                         {0, 0, 1, 1, 2, 2},
                                                         {0, 0, 0, 1},
                                                         {5, 1, 5, 1, 5, 1, 5},
                                                         {0},
                                                         {0, 0, 0, 0, 0, 0, 0, 1}}) {
    const std::vector<int> node_of = nodes_of_hosts(hosts);
    check_pairs(node_of, true);
    check_pairs(node_of, false);
  }
  // One rank per node (the SMPI platforms): everyone but an odd one out pairs across nodes.
  const std::vector<int> spread = nodes_of_hosts({0, 1, 2, 3, 4, 5, 6});
  int inter = 0;
  for (int r = 0; r < 7; ++r) {
    EXPECT_LT(intra_node_pair(spread, r).partner, 0);
    if (inter_node_pair(spread, r).partner >= 0) ++inter;
  }
  EXPECT_EQ(inter, 6);
  // Two nodes of four: four concurrent cross pairs.
  const std::vector<int> two = nodes_of_hosts({0, 0, 0, 0, 1, 1, 1, 1});
  for (int r = 0; r < 8; ++r) EXPECT_GE(inter_node_pair(two, r).partner, 0);
}

TEST(CalibrationPlan, StepBudgetStopsAtMostOneStepLate) {
  // Steps of 3 ms against a 10 ms budget: a fake clock, so nothing here depends on the machine.
  StepBudget b(0.010, 2, 100);
  double t = 0;
  while (b.another(t)) {
    t += 0.003;
    b.done(0.003);
  }
  EXPECT_EQ(b.steps(), 3);
  EXPECT_LE(t, 0.010 + 0.003);
  // The minimum is taken even past the budget; the maximum never exceeded.
  StepBudget slow(0.001, 3, 100);
  double u = 0;
  while (slow.another(u)) {
    u += 0.5;
    slow.done(0.5);
  }
  EXPECT_EQ(slow.steps(), 3);
  StepBudget capped(100, 1, 5);
  while (capped.another(0)) capped.done(0);
  EXPECT_EQ(capped.steps(), 5);
  // One slow step makes the loop careful: the next is assumed as slow.
  StepBudget careful(0.010, 1, 100);
  careful.done(0.006);
  EXPECT_FALSE(careful.another(0.006));
}

TEST(CalibrationPlan, BudgetSplitAndEstimates) {
  const BudgetSplit both = split_budget(0.02, true, true);
  EXPECT_NEAR(both.gamma_s + both.intra_s + both.inter_s, 0.02, 1e-12);
  EXPECT_GT(both.intra_s, 0);
  EXPECT_EQ(split_budget(0.02, false, true).intra_s, 0);
  // Round trips of a 22 us / 8 ns/B link: 2 alpha small, 2 alpha + beta m large.
  const double m = 65536;
  const PairEstimate e =
      estimate_pair({44e-6, 45e-6, 44e-6}, {44e-6 + 8e-9 * m, 1, 44e-6 + 8e-9 * m}, m);
  EXPECT_NEAR(e.alpha, 22e-6, 1e-12);
  EXPECT_NEAR(e.beta, 8e-9, 1e-15);
  EXPECT_TRUE(std::isnan(estimate_pair({}, {}, m).alpha));
  // Noise that makes the slope negative (or 0) gives the upper bound large / m, never 0 or less.
  EXPECT_DOUBLE_EQ(estimate_pair({10e-6}, {5e-6}, m).beta, 5e-6 / m);
  EXPECT_DOUBLE_EQ(estimate_pair({5e-6}, {5e-6}, m).beta, 5e-6 / m);
  // opa-36's links at 64 KiB: beta m = 5.2 us is not 4 x the 2 us round trip yet.
  EXPECT_TRUE(grow_large_message(2e-6, 2e-6 + 8e-11 * m, m, 4 << 20));
  EXPECT_FALSE(grow_large_message(2e-6, 2e-6 + 8e-11 * 4 * m, 4 * m, 4 << 20));
  EXPECT_FALSE(grow_large_message(2e-6, 2e-6, 2 << 20, 4 << 20));  // at the cap
  // Growing: two steps of the larger size (2 small + 4 x the extra each) must fit what is left.
  EXPECT_TRUE(larger_message_fits(0.001, 10e-6, 60e-6, 0.010));  // 2 x 220 us left over
  EXPECT_FALSE(larger_message_fits(0.0096, 10e-6, 60e-6, 0.010));
  EXPECT_FALSE(larger_message_fits(0, 1e-3, 2e-3, 0.010));  // 2 x 6 ms > 10 ms
}

TEST(NetworkParams, InUseTakesInterNodeLinksWhenTheCommunicatorSpansNodes) {
  NetworkParams n;
  const CostParams defaults;
  CostParams c = n.in_use(GammaClass::float32);
  EXPECT_EQ(c.alpha, defaults.alpha);
  EXPECT_EQ(c.beta, defaults.beta);
  EXPECT_EQ(c.gamma, defaults.gamma);
  n.intra = {1e-6, 3e-10};
  n.inter = {22e-6, 8e-9};
  n.gamma[0] = 1e-10;
  n.gamma[1] = 2e-10;
  n.nodes = 1;
  EXPECT_EQ(n.in_use(GammaClass::float32).alpha, 1e-6);
  n.nodes = 4;
  c = n.in_use(GammaClass::float64);
  EXPECT_EQ(c.alpha, 22e-6);
  EXPECT_EQ(c.beta, 8e-9);
  EXPECT_EQ(c.gamma, 2e-10);
  EXPECT_EQ(n.in_use(GammaClass::integer).gamma, defaults.gamma);  // not measured
  n.inter = {};
  EXPECT_EQ(n.in_use(GammaClass::float32).alpha, 1e-6);  // what is known
  // The wire form is exact.
  double wire[NetworkParams::kWireDoubles];
  n.seconds = 0.0123;
  n.source = NetworkSource::measured;
  n.to_wire(wire);
  const NetworkParams back = NetworkParams::from_wire(wire);
  EXPECT_EQ(back.intra.alpha, n.intra.alpha);
  EXPECT_TRUE(std::isnan(back.inter.alpha));
  EXPECT_EQ(back.gamma[1], n.gamma[1]);
  EXPECT_EQ(back.nodes, 4);
  EXPECT_EQ(back.source, NetworkSource::measured);
  EXPECT_EQ(back.seconds, 0.0123);
}

TEST(NetworkParams, EnvironmentSetting) {
  NetworkSetting s = parse_network_setting("22e-6,8e-9");
  ASSERT_TRUE(s.error.empty()) << s.error;
  EXPECT_FALSE(s.is_path);
  EXPECT_EQ(s.params.inter.alpha, 22e-6);
  EXPECT_EQ(s.params.intra.beta, 8e-9);
  EXPECT_TRUE(std::isnan(s.params.gamma[0]));
  EXPECT_EQ(s.params.source, NetworkSource::environment);
  s = parse_network_setting("1e-6, 8e-11, 1e-12");
  ASSERT_TRUE(s.error.empty()) << s.error;
  EXPECT_EQ(s.params.gamma[2], 1e-12);
  for (const char* bad :
       {"1e-6", "1e-6,2e-9,3,4", "0,1e-9", "1e-6,-1", "1e-6,nan", "1e-6,inf", "1e-6,x", "5,1e-9,-1",
        "1e-6,,1", "nan,1e-9", "INF,1e-9", "5us,1e-9", "1e-6,2e-9,", "-1e-6,1e-9", "1e-6 2e-9"})
    EXPECT_FALSE(parse_network_setting(bad).error.empty()) << bad;
  s = parse_network_setting("/tmp/cluster.model");
  EXPECT_TRUE(s.is_path);
  EXPECT_EQ(s.path, "/tmp/cluster.model");
}

TEST(NetworkParams, FromLinkModelPerClass) {
  // Ranks 0, 1 on node 0; 2, 3 on node 2: fast inside, slow between.
  std::vector<double> a(16, 20e-6), b(16, 8e-9);
  for (auto [i, j] : {std::pair{0, 1}, {1, 0}, {2, 3}, {3, 2}}) {
    a[i * 4 + j] = 1e-6;
    b[i * 4 + j] = 2e-10;
  }
  const LinkModelResult m = LinkModel::from_matrices(4, a, b);
  ASSERT_TRUE(m.ok()) << m.error;
  const NetworkParams n = params_from_link_model(*m.model, {0, 0, 2, 2});
  EXPECT_EQ(n.nodes, 2);
  EXPECT_EQ(n.intra.alpha, 1e-6);
  EXPECT_EQ(n.intra.beta, 2e-10);
  EXPECT_EQ(n.inter.alpha, 20e-6);
  EXPECT_EQ(n.inter.beta, 8e-9);
  EXPECT_EQ(n.source, NetworkSource::model_file);
  const NetworkParams h = params_from_link_model(*LinkModel::homogeneous(8, 5e-6, 1e-9).model,
                                                 {0, 1, 2, 3, 4, 5, 6, 7});
  EXPECT_EQ(h.inter.alpha, 5e-6);
  EXPECT_FALSE(h.intra.known());
}

CalibrationKey key_for(int ranks) {
  CalibrationKey k;
  k.ranks = ranks;
  k.library = "Open MPI v4.1.4, package: Debian OpenMPI 4.1.4-3\n";
  k.hash = calibration_key_hash(hosts_of({0, 0, 1, 1}), ranks, k.library);
  return k;
}

NetworkParams measured_example() {
  NetworkParams n;
  n.intra = {1.25e-6, 3.1e-10};
  n.inter = {2.2e-5, 8e-9};
  n.gamma[0] = 2.5e-10;
  n.gamma[1] = 2.6e-10;
  n.gamma[2] = 0;
  n.nodes = 2;
  n.source = NetworkSource::measured;
  n.seconds = 0.0071;
  return n;
}

TEST(CalibrationFile, KeyIgnoresRankOrderButNotSizeOrLibrary) {
  const std::string lib = "Open MPI v4.1.4";
  EXPECT_EQ(calibration_key_hash(hosts_of({0, 1, 1, 2}), 4, lib),
            calibration_key_hash(hosts_of({1, 2, 0, 1}), 4, lib));
  EXPECT_NE(calibration_key_hash(hosts_of({0, 1, 1, 2}), 4, lib),
            calibration_key_hash(hosts_of({0, 1, 2, 2}), 4, lib));
  EXPECT_NE(calibration_key_hash(hosts_of({0, 1}), 2, lib),
            calibration_key_hash(hosts_of({0, 1}), 3, lib));
  EXPECT_NE(calibration_key_hash(hosts_of({0, 1}), 2, lib),
            calibration_key_hash(hosts_of({0, 1}), 2, "MPICH 4.0"));
  // PAPCOLL_NODES's layout keys the file too; without it the key is what it always was.
  const std::uint64_t plain = calibration_key_hash(hosts_of({0, 0, 0, 0}), 4, lib);
  EXPECT_EQ(plain, calibration_key_hash(hosts_of({0, 0, 0, 0}), 4, lib, ""));
  const std::uint64_t two =
      calibration_key_hash(hosts_of({0, 0, 0, 0}), 4, lib, block_node_layout(4, 2).key());
  EXPECT_NE(plain, two);
  EXPECT_NE(two,
            calibration_key_hash(hosts_of({0, 0, 0, 0}), 4, lib, block_node_layout(4, 1).key()));
  EXPECT_EQ(key_text(0x1a2bULL), "0000000000001a2b");
}

TEST(CalibrationFile, WriteThenReadIsExact) {
  const CalibrationKey k = key_for(4);
  const NetworkParams n = measured_example();
  const std::string text = write_calibration(n, k);
  const CalibrationFileResult r = parse_calibration(text, "c.txt", k);
  ASSERT_TRUE(r.ok) << r.error << "\n" << text;
  EXPECT_EQ(r.params.intra.alpha, n.intra.alpha);
  EXPECT_EQ(r.params.intra.beta, n.intra.beta);
  EXPECT_EQ(r.params.inter.alpha, n.inter.alpha);
  EXPECT_EQ(r.params.inter.beta, n.inter.beta);
  for (int c = 0; c < kGammaClasses; ++c) EXPECT_EQ(r.params.gamma[c], n.gamma[c]);
  EXPECT_EQ(r.params.nodes, 2);
  EXPECT_EQ(r.params.source, NetworkSource::cache);
  // A class that was not measured is written and read as "none".
  NetworkParams single = n;
  single.inter = {};
  const CalibrationFileResult s = parse_calibration(write_calibration(single, k), "c.txt", k);
  ASSERT_TRUE(s.ok) << s.error;
  EXPECT_FALSE(s.params.inter.known());
}

TEST(CalibrationFile, CorruptAndForeignFilesAreRefusedWithAReason) {
  const CalibrationKey k = key_for(4);
  const std::string good = write_calibration(measured_example(), k);
  auto error_of = [&](const std::string& text, const CalibrationKey& key) {
    const CalibrationFileResult r = parse_calibration(text, "c.txt", key);
    EXPECT_FALSE(r.ok) << text;
    return r.error;
  };
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string t = good;
    const size_t at = t.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return t.replace(at, from.size(), to);
  };
  EXPECT_NE(error_of("", k).find("not a papcoll calibration file"), std::string::npos);
  EXPECT_NE(error_of("papcoll-model 1\np 4\nend\n", k).find("not a papcoll calibration"),
            std::string::npos);
  EXPECT_NE(
      error_of(replaced("papcoll-calibration 1", "papcoll-calibration 2"), k).find("unsupported"),
      std::string::npos);
  EXPECT_NE(error_of(good.substr(0, good.size() - 4), k).find("truncated"), std::string::npos);
  EXPECT_NE(error_of(good.substr(0, good.size() / 2), k).find("c.txt"), std::string::npos);
  EXPECT_NE(error_of(replaced("inter 2.2e-05 8e-09", "inter 2.2e-05 -8e-09"), k).find("line"),
            std::string::npos);
  EXPECT_NE(error_of(replaced("inter 2.2e-05 8e-09", "inter nan 8e-09"), k).find("inter"),
            std::string::npos);
  EXPECT_NE(error_of(replaced("gamma int 0", "gamma long 0"), k).find("gamma"), std::string::npos);
  EXPECT_NE(error_of(replaced("nodes 2\n", ""), k).find("no 'nodes' line"), std::string::npos);
  EXPECT_NE(error_of(replaced("end\n", "bogus 1\nend\n"), k).find("unknown line"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(20000, 'x'), k).find("longer than"), std::string::npos);
  // Foreign: another key, another size, another library.
  CalibrationKey other = k;
  other.hash ^= 1;
  EXPECT_NE(error_of(good, other).find("foreign"), std::string::npos);
  CalibrationKey lib = k;
  lib.library = "MPICH 4.0";
  EXPECT_NE(
      error_of(replaced("key " + key_text(k.hash), "key " + key_text(k.hash)), lib).find("foreign"),
      std::string::npos);
  EXPECT_NE(error_of(replaced("ranks 4", "ranks 5"), k).find("foreign"), std::string::npos);
}

}  // namespace
}  // namespace papcoll
