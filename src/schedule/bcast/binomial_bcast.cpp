// Binomial-tree broadcast. With one block it is the classic whole-message tree (MPICH's short
// message bcast): the root sends to its children largest subtree first, one per round, so it
// takes ceil(log2 p) rounds. With B > 1 blocks it is the segmented (pipelined) tree of Open MPI:
// every rank forwards block 0 to all its children, then block 1, and so on, one message per round
// through its single send port, each as soon as it has received the block. Rounds are the slots
// of that one-ported timing. A rank's receive rounds follow from its parent's sends, so a rank's
// part is computed down its path from the root (depth ceil(log2 p)).
#include <algorithm>
#include <vector>

#include "schedule/bcast/binomial_tree.hpp"
#include "schedule/bcast_generators.hpp"

namespace papcoll {
namespace {

// The one-ported send rounds of virtual rank u: sent[c][s], per child index c (children order)
// and block s, given the rounds `have` in which u received each block (-1: the root).
std::vector<std::vector<int>> send_rounds(int p, int u, int n, const std::vector<int>& have) {
  const auto children = binomial::children(p, u);
  std::vector<std::vector<int>> sent(children.size(), std::vector<int>(static_cast<size_t>(n)));
  int port = 0;  // first round u's send port is free
  for (int s = 0; s < n; ++s)
    for (size_t c = 0; c < children.size(); ++c) {
      const int round = std::max(port, have[s] + 1);
      port = round + 1;
      sent[c][s] = round;
    }
  return sent;
}

}  // namespace

void binomial_bcast_schedule(const GeneratorInput& in, ScheduleSink& out) {
  const int p = in.p;
  const int n = std::max(1, in.blocks);
  const int root = bcast_root(in);
  auto real = [&](int v) { return (v + root) % p; };
  for (int r = out.first_rank(); r < out.last_rank(); ++r) {
    const int v = ((r - root) % p + p) % p;
    // The path root = a_0, a_1, ..., a_m = v: each a_{i+1} is a_i plus a bit below a_i's lowest.
    std::vector<int> path{v};
    while (path.back() != 0) path.push_back(path.back() & (path.back() - 1));
    std::reverse(path.begin(), path.end());
    std::vector<int> have(static_cast<size_t>(n), -1);
    for (size_t i = 0; i + 1 < path.size(); ++i) {
      const auto children = binomial::children(p, path[i]);
      const auto sent = send_rounds(p, path[i], n, have);
      const auto it = std::find_if(children.begin(), children.end(),
                                   [&](const auto& ch) { return ch.first == path[i + 1]; });
      have = sent[static_cast<size_t>(it - children.begin())];
    }
    if (v != 0)
      for (int s = 0; s < n; ++s)
        out.recv(r, have[s], real(path[path.size() - 2]), BlockSet::range(s, s + 1), Combine::copy);
    const auto children = binomial::children(p, v);
    const auto sent = send_rounds(p, v, n, have);
    for (size_t c = 0; c < children.size(); ++c)
      for (int s = 0; s < n; ++s)
        out.send(r, sent[c][s], real(children[c].first), BlockSet::range(s, s + 1));
  }
}

}  // namespace papcoll
