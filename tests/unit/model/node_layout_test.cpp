// NodeLayout (src/model/node_layout.hpp): canonical numbering from any labels, the helpers, the
// cache key's canonical form, validation, and PAPCOLL_NODES's forms and errors.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>
#include <vector>

#include "model/node_layout.hpp"

namespace papcoll {
namespace {

TEST(NodeLayout, LabelsAreRenumberedByLowestRank) {
  const std::vector<int64_t> labels{70, 70, 9, 9, 70, 3};
  const NodeLayout l = node_layout_from_labels(labels);
  EXPECT_EQ(l.node_of, (std::vector<int>{0, 0, 1, 1, 0, 2}));
  EXPECT_EQ(l.p(), 6);
  EXPECT_EQ(l.nodes(), 3);
  EXPECT_EQ(l.ranks_on(0), (std::vector<int>{0, 1, 4}));
  EXPECT_EQ(l.ranks_on(1), (std::vector<int>{2, 3}));
  EXPECT_EQ(l.ranks_on(2), (std::vector<int>{5}));
  EXPECT_EQ(l.leader(0), 0);
  EXPECT_EQ(l.leader(1), 2);
  EXPECT_EQ(l.leader(2), 5);
  EXPECT_EQ(l.local_index(4), 2);
  EXPECT_EQ(l.local_index(3), 1);
  EXPECT_EQ(l.local_index(5), 0);
  EXPECT_EQ(l.largest_node(), 3);
  EXPECT_EQ(l.smallest_node(), 1);
  EXPECT_FALSE(l.equal_nodes());
  EXPECT_FALSE(l.one_rank_per_node());
  EXPECT_FALSE(l.single_node());
  EXPECT_FALSE(l.contiguous());
  EXPECT_EQ(l.describe(), "6 ranks on 3 nodes of 1 to 3 (not contiguous)");
  // Other labels for the same partition: the same layout.
  const std::vector<int64_t> other{1, 1, 5, 5, 1, 0};
  EXPECT_EQ(node_layout_from_labels(other), l);
  EXPECT_EQ(node_layout_from_labels(other).key(), l.key());
}

TEST(NodeLayout, RegularShapes) {
  const NodeLayout b = block_node_layout(10, 4);
  EXPECT_EQ(b.node_of, (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1, 2, 2}));
  EXPECT_EQ(b.nodes(), 3);
  EXPECT_EQ(b.largest_node(), 4);
  EXPECT_EQ(b.smallest_node(), 2);
  EXPECT_TRUE(b.contiguous());
  EXPECT_FALSE(b.equal_nodes());
  EXPECT_EQ(b.describe(), "10 ranks on 3 nodes of 2 to 4");

  const NodeLayout e = block_node_layout(48, 6);
  EXPECT_EQ(e.nodes(), 8);
  EXPECT_TRUE(e.equal_nodes());
  EXPECT_EQ(e.local_index(47), 5);
  EXPECT_EQ(e.describe(), "48 ranks on 8 nodes of 6");

  const NodeLayout one = block_node_layout(5, 1);
  EXPECT_TRUE(one.one_rank_per_node());
  EXPECT_TRUE(one.equal_nodes());
  EXPECT_EQ(one.nodes(), 5);
  EXPECT_EQ(one, block_node_layout(5, 1));

  const NodeLayout single = block_node_layout(7, 7);
  EXPECT_TRUE(single.single_node());
  EXPECT_EQ(single.nodes(), 1);
  EXPECT_EQ(single, block_node_layout(7, 100));
  EXPECT_TRUE(block_node_layout(1, 1).one_rank_per_node());

  const NodeLayout empty;
  EXPECT_EQ(empty.p(), 0);
  EXPECT_EQ(empty.nodes(), 0);
  EXPECT_EQ(block_node_layout(0, 1), empty);
}

TEST(NodeLayout, Validation) {
  EXPECT_EQ(node_layout_error({{0, 0, 1, 0, 2, 1}}), "");
  EXPECT_EQ(node_layout_error({{}}), "");
  std::string error = node_layout_error({{1, 0}});
  EXPECT_NE(error.find("rank 0 is 1"), std::string::npos) << error;
  error = node_layout_error({{0, 2, 1}});
  EXPECT_NE(error.find("rank 1 is 2"), std::string::npos) << error;
  EXPECT_NE(node_layout_error({{0, -1}}), "");
  // Whatever labels it starts from, a layout from labels is valid.
  const std::vector<int64_t> labels{9, -4, 9, 100, -4};
  EXPECT_EQ(node_layout_error(node_layout_from_labels(labels)), "");
}

// Keys are equal exactly when layouts are: all partitions of up to 6 ranks (restricted growth
// strings enumerate each partition once).
TEST(NodeLayout, KeysAreCanonicalAndDistinct) {
  for (int p = 1; p <= 6; ++p) {
    std::set<std::string> keys;
    int count = 0;
    std::vector<int> rgs(static_cast<size_t>(p), 0);
    while (true) {
      const NodeLayout layout{rgs};
      const NodeLayout* l = &layout;
      ASSERT_EQ(node_layout_error(layout), "");
      keys.insert(l->key());
      ++count;
      // The same partition from shuffled labels has the same key.
      std::vector<int64_t> labels;
      for (int n : rgs) labels.push_back(1000 - 7 * n);
      EXPECT_EQ(node_layout_from_labels(labels).key(), l->key());
      // Next restricted growth string.
      int i = p - 1;
      for (; i > 0; --i) {
        int max_before = 0;
        for (int j = 0; j < i; ++j) max_before = std::max(max_before, rgs[static_cast<size_t>(j)]);
        if (rgs[static_cast<size_t>(i)] <= max_before) {
          ++rgs[static_cast<size_t>(i)];
          for (int j = i + 1; j < p; ++j) rgs[static_cast<size_t>(j)] = 0;
          break;
        }
      }
      if (i == 0) break;
    }
    const int bell[] = {1, 1, 2, 5, 15, 52, 203};
    EXPECT_EQ(count, bell[p]);
    EXPECT_EQ(static_cast<int>(keys.size()), count) << "p = " << p;
  }
  // Large regular layouts have short keys.
  EXPECT_LE(block_node_layout(1 << 20, 16).key().size(), 8u);
  EXPECT_LE(block_node_layout(1024, 1).key().size(), 8u);
}

TEST(NodeLayout, EveryRankOnceInItsNode) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 50; ++trial) {
    const int p = 1 + static_cast<int>(rng() % 40);
    std::vector<int64_t> labels(static_cast<size_t>(p));
    for (auto& v : labels) v = static_cast<int64_t>(rng() % 6);
    const NodeLayout l = node_layout_from_labels(labels);
    ASSERT_EQ(node_layout_error(l), "");
    std::vector<int> seen(static_cast<size_t>(p), 0);
    int total = 0;
    for (int n = 0; n < l.nodes(); ++n) {
      const std::vector<int> rs = l.ranks_on(n);
      ASSERT_EQ(static_cast<int>(rs.size()), l.node_size(n));
      ASSERT_FALSE(rs.empty());
      EXPECT_EQ(l.leader(n), rs[0]);
      for (size_t i = 0; i < rs.size(); ++i) {
        ++seen[static_cast<size_t>(rs[i])];
        EXPECT_EQ(l.node_of[static_cast<size_t>(rs[i])], n);
        EXPECT_EQ(l.local_index(rs[i]), static_cast<int>(i));
        if (i > 0) {
          EXPECT_LT(rs[i - 1], rs[i]);
        }
        EXPECT_EQ(labels[static_cast<size_t>(rs[i])], labels[static_cast<size_t>(rs[0])]);
      }
      if (n > 0) {
        EXPECT_LT(l.leader(n - 1), l.leader(n));
      }
      total += static_cast<int>(rs.size());
    }
    EXPECT_EQ(total, p);
    EXPECT_EQ(l.leader(l.nodes()), -1);
    for (int s : seen) EXPECT_EQ(s, 1);
  }
}

TEST(NodeSpec, Forms) {
  std::string error;
  auto l = parse_node_spec("block:3", 8, &error);
  ASSERT_TRUE(l.has_value()) << error;
  EXPECT_EQ(*l, block_node_layout(8, 3));
  l = parse_node_spec("cyclic:3", 7, &error);
  ASSERT_TRUE(l.has_value()) << error;
  EXPECT_EQ(l->node_of, (std::vector<int>{0, 1, 2, 0, 1, 2, 0}));
  l = parse_node_spec("cyclic:9", 4, &error);
  ASSERT_TRUE(l.has_value()) << error;
  EXPECT_TRUE(l->one_rank_per_node());
  l = parse_node_spec("sizes:2,3,1", 6, &error);
  ASSERT_TRUE(l.has_value()) << error;
  EXPECT_EQ(l->node_of, (std::vector<int>{0, 0, 1, 1, 1, 2}));
  l = parse_node_spec("list:5,5,0,5", 4, &error);
  ASSERT_TRUE(l.has_value()) << error;
  EXPECT_EQ(l->node_of, (std::vector<int>{0, 0, 1, 0}));
  l = parse_node_spec("block:64", 4, &error);
  ASSERT_TRUE(l.has_value()) << error;
  EXPECT_TRUE(l->single_node());
}

TEST(NodeSpec, ErrorsSayWhat) {
  const char* bad[] = {"",
                       "block",
                       "block:",
                       "block:0",
                       "block:-2",
                       "block:2x",
                       "cyclic:0",
                       "sizes:2,3",
                       "sizes:2,,2",
                       "sizes:0,4",
                       "sizes:5",
                       "list:1,2,3",
                       "list:1,-2,3,4",
                       "list:a,b,c,d",
                       "ring:2",
                       "block:99999999999999999999"};
  for (const char* text : bad) {
    std::string error;
    EXPECT_FALSE(parse_node_spec(text, 4, &error).has_value()) << text;
    EXPECT_NE(error.find("PAPCOLL_NODES"), std::string::npos) << text << ": " << error;
    EXPECT_NE(error.find("block:K"), std::string::npos) << error;
  }
  std::string error;
  parse_node_spec("sizes:2,1", 4, &error);
  EXPECT_NE(error.find("add up to 3, not to the 4 ranks"), std::string::npos) << error;
  parse_node_spec("list:1,2", 4, &error);
  EXPECT_NE(error.find("2 labels for the 4 ranks"), std::string::npos) << error;
}

}  // namespace
}  // namespace papcoll
