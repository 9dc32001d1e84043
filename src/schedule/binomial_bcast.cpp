// Binomial-tree broadcast. With one block it is the classic whole-message tree (MPICH's short
// message bcast): the root sends to its children largest subtree first, one per round, so it
// takes ceil(log2 p) rounds. With B > 1 blocks it is the segmented (pipelined) tree of Open MPI:
// every rank forwards block 0 to all its children, then block 1, and so on, one message per round
// through its single send port, each as soon as it has received the block. Rounds are the slots
// of that one-ported timing.
#include <algorithm>
#include <vector>

#include "schedule/bcast_generators.hpp"
#include "schedule/binomial_tree.hpp"
#include "schedule/builder.hpp"

namespace papcoll {

Schedule binomial_bcast_schedule(const GeneratorInput& in) {
  const int p = in.p;
  const int n = std::max(1, in.blocks);
  const int root = bcast_root(in);
  ScheduleBuilder b(Collective::bcast, "binomial", p, n, root);
  // have[v][s]: round in which v received block s (-1: before round 0, the root).
  std::vector<std::vector<int>> have(static_cast<size_t>(p), std::vector<int>(n, -1));
  // Parents before children: increasing virtual rank is a topological order of this tree.
  for (int v = 0; v < p; ++v) {
    int port = 0;  // first round v's send port is free
    const auto children = binomial::children(p, v);
    for (int s = 0; s < n; ++s)
      for (const auto& [c, i] : children) {
        const int round = std::max(port, have[v][s] + 1);
        port = round + 1;
        have[c][s] = round;
        b.transfer(round, (v + root) % p, (c + root) % p, {s}, Combine::copy);
      }
  }
  return std::move(b).build();
}

}  // namespace papcoll
