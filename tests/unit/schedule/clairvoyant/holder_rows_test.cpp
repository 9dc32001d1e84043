// The peer query of Clairvoyant(segtree) (holder_rows.hpp) against a brute-force model: random
// fractional arrival times (with ties), random states, rounds whose members are taken in G order
// (the cyclic position order from the head), senders and hidden receivers; holder(s) must be the
// first member in that order that holds s, has not sent and is not hidden.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "schedule/clairvoyant/holder_rows.hpp"

namespace papcoll::clairvoyant {
namespace {

TEST(HolderRows, MatchesBruteForce) {
  std::mt19937_64 rng(11);
  for (int p : {1, 2, 5, 63, 64, 65, 130, 200}) {
    for (int segments : {1, 3, 70}) {
      Clock clk;
      clk.k0.assign(static_cast<size_t>(p), 0);
      clk.f.resize(static_cast<size_t>(p));
      for (double& f : clk.f) f = static_cast<double>(rng() % 8) / 8;  // many ties
      HolderRows rows(clk, p, segments);
      std::vector<std::vector<char>> holds(static_cast<size_t>(p),
                                           std::vector<char>(static_cast<size_t>(segments), 1));
      // Processes in (f, rank) order: G order is this order rotated to start at the head.
      std::vector<int> order(static_cast<size_t>(p));
      for (int c = 0; c < p; ++c) order[c] = c;
      std::sort(order.begin(), order.end(),
                [&](int a, int b) { return clk.f[a] != clk.f[b] ? clk.f[a] < clk.f[b] : a < b; });
      for (int round = 0; round < 20; ++round) {
        for (int c = 0; c < p; ++c)
          for (int s = 0; s < segments; ++s)
            if (rng() % 7 == 0) {
              holds[c][s] = !holds[c][s];
              if (holds[c][s])
                rows.set(s, rows.pos(c));
              else
                rows.clear(s, rows.pos(c));
            }
        const int start = static_cast<int>(rng() % static_cast<uint64_t>(p));
        std::vector<int> G;
        for (int i = 0; i < p; ++i) {
          const int c = order[static_cast<size_t>((start + i) % p)];
          if (i == 0 || rng() % 3 != 0) G.push_back(c);  // the head is always a member
        }
        rows.start_round(G);
        std::vector<char> sent(static_cast<size_t>(p), 0);
        for (int step = 0; step < 2 * static_cast<int>(G.size()); ++step) {
          const int hidden = G[rng() % G.size()];
          const uint64_t saved = rows.hide(rows.pos(hidden));
          for (int s = 0; s < segments; ++s) {
            int want = -1;
            for (int c : G)
              if (c != hidden && !sent[c] && holds[c][s]) {
                want = c;
                break;
              }
            ASSERT_EQ(rows.holder(s), want) << "p=" << p << " N=" << segments << " s=" << s;
          }
          rows.unhide(rows.pos(hidden), saved);
          const int z = G[rng() % G.size()];
          if (!sent[z]) {
            sent[z] = 1;
            rows.sent(rows.pos(z));
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace papcoll::clairvoyant
