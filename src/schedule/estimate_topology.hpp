// Message times over a node layout for the O(p) estimates (estimate.hpp): the ranks of one node
// share the node's link to the network (GeneratorInput::nodes), so k transfers leaving one node at
// once each take k times as long through it, and likewise k transfers entering one node (flows
// share a link fairly: SimGrid's network model and TCP behave so), while a transfer between two
// ranks of one node takes cost.intra_alpha + cost.intra_beta m and shares nothing (one core's
// copy; SimGrid's cluster loopback is a fat pipe). Without a layout every rank is its own node:
// a transfer takes alpha + beta m times the number of transfers its sender (or receiver) runs at
// once, which is 1 for the one-ported schedules papcoll generates.
//
// `LockstepStep` is the time of one step of an algorithm in which every rank sends at most one
// message and all of a step's messages are in flight together (rings, butterflies, Bruck, the
// rounds of a tree): the step's slowest transfer. The estimates of the MPI library's algorithms
// (select/library_model.hpp) and node-aware estimates of papcoll's own generators share it.
#pragma once

#include <cstdint>
#include <vector>

#include "model/node_layout.hpp"
#include "schedule/registry.hpp"

namespace papcoll::estimate {

class NodeLinks {
 public:
  explicit NodeLinks(const GeneratorInput& in);

  int p() const { return p_; }
  // True without a layout or with one rank per node: every rank is its own node.
  bool one_rank_per_node() const { return node_of_ == nullptr; }
  int nodes() const { return nodes_; }
  int node(int r) const { return node_of_ == nullptr ? r : (*node_of_)[static_cast<size_t>(r)]; }
  bool same_node(int a, int b) const { return a != b && node_of_ != nullptr && node(a) == node(b); }
  // One transfer of `bytes` from `from` to `to` while `share` transfers (this one included) use
  // the busier of the two nodes' links in that direction; inside a node the intra parameters and
  // no sharing.
  double message(int from, int to, double bytes, double share = 1) const;
  double alpha() const { return alpha_; }
  double beta() const { return beta_; }
  double intra_alpha() const { return intra_alpha_; }
  double intra_beta() const { return intra_beta_; }

 private:
  int p_ = 1;
  int nodes_ = 1;
  const std::vector<int>* node_of_ = nullptr;  // null: rank r is node r
  double alpha_ = 0, beta_ = 0, intra_alpha_ = 0, intra_beta_ = 0;
};

// One lockstep step: add() each transfer, time() the slowest one. A transfer between nodes takes
// alpha + beta x (the bytes of the step leaving its sender's node or entering its receiver's
// node, whichever is more): with k equal transfers through one link, k times one alone.
// O(transfers); the per-node sums are reset only where add() touched them.
class LockstepStep {
 public:
  explicit LockstepStep(const NodeLinks& links);
  void clear();
  void add(int from, int to, double bytes);
  double time() const;
  // The time of one transfer added to this step (it must have been added): alpha + beta x the
  // busier link's bytes, or the intra-node time.
  double transfer_time(int from, int to, double bytes) const;

 private:
  struct Transfer {
    int from, to;
    double bytes;
  };
  const NodeLinks& links_;
  std::vector<Transfer> transfers_;
  std::vector<double> out_, in_;  // per node: bytes leaving / entering over the network
  std::vector<int> touched_;
};

// The time of one step in which every rank r with to[r] >= 0 sends bytes[r] to to[r] (O(p)).
double lockstep_step_time(const GeneratorInput& in, const std::vector<int>& to,
                          const std::vector<double>& bytes);

// One step of a butterfly: virtual ranks v and v ^ mask swap `bytes` each way, then each reduces
// `reduced` bytes (gamma each).
struct ButterflyStep {
  int mask;
  double bytes;
  double reduced = 0;
};
// A butterfly in two parts. butterfly_durations: every step's transfer times among n =
// real.size() virtual ranks (v is rank real[v]; n a power of two); entry k * n + v is step k's
// time of v's swap with v ^ mask. A transfer takes its time in its step's LockstepStep (the step's
// transfers through one node's link share it), O(n log n); the times depend on the layout, the
// ranks and the steps, not on when anybody arrives, so a caller that weighs many arrival patterns
// on one layout keeps them. butterfly_finish: each virtual rank's finish, entering at ready[v],
// O(n log n) additions. A pair starts a step once both have finished the previous one, not when
// the whole step has: a pair whose transfers stay inside a node runs ahead of pairs that share a
// node's link, as in SimGrid, where the ranks of a butterfly drift apart (8 nodes of 6 ranks,
// Rabenseifner's 1M floats: 123 ms this way, 172 as whole lockstep steps, 125.6 simulated).
std::vector<double> butterfly_durations(const GeneratorInput& in, const std::vector<int>& real,
                                        const std::vector<ButterflyStep>& steps);
std::vector<double> butterfly_finish(const std::vector<double>& durations,
                                     const std::vector<ButterflyStep>& steps, double gamma,
                                     std::vector<double> ready);

// A ring over the ranks in `order` (position x sends to position x + 1, mod p), every hop
// carrying `bytes` at once: the time of each hop (from order[x] to order[x + 1]). A hop inside a
// node takes the intra parameters; a hop between nodes shares its node's link with the ring's
// other hops leaving that node (or entering the receiver's, whichever are more), as they all run
// at once in a ring's steady state. In rank order on contiguous nodes one hop per node leaves it;
// in arrival order (PRR) a node may have several. O(p).
std::vector<double> ring_hop_times(const GeneratorInput& in, const std::vector<int>& order,
                                   double bytes);

// The finish of each position's receives after `steps` steps of a ring in which position x's step
// k receives from x - 1 what x - 1 received in its step k - 1 (its own data in step 0), over
// hops `hop` (hop[x]: x to x + 1), each position entering at ready[x]: the executor's order (a
// rank posts a step once its previous receive is done; a send stays pending past its step), in
// which a step's receive starts once both ends have finished their previous step. So a
// position's last receive ends after the longest chain of steps from some position's entry,
// moving one position on or staying per step, each step costing the hop into where it stands:
// the chain reaches x from y over the hops between and spends its other steps on the slowest of
// them. Unlike a lockstep step (the slowest hop of the ring every step), the fast hops inside a
// node let a rank that enters late catch up with its neighbours. O(p) per distinct hop time.
std::vector<double> ring_receive_finish(const std::vector<double>& hop,
                                        const std::vector<double>& ready, int steps);

}  // namespace papcoll::estimate
