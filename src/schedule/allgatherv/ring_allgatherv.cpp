// Ring allgather(v): in round h rank r sends the blocks of origin r - h to r + 1 (its own in round
// 0, afterwards what it received in the round before) and receives those of origin r - 1 - h,
// p - 1 rounds.
#include "schedule/allgatherv_generators.hpp"

#include <algorithm>
#include <numeric>

#include "schedule/estimate.hpp"
#include "schedule/estimate_topology.hpp"

namespace papcoll {

void ring_allgatherv_schedule(const GeneratorInput& in, ScheduleSink& out) {
  const int p = in.p;
  auto origin = [&](int o) { return origin_blocks(in.blocks, p, ((o % p) + p) % p); };
  for (int r = out.first_rank(); r < out.last_rank(); ++r)
    for (int h = 0; h + 1 < p; ++h) {
      out.send(r, h, (r + 1) % p, origin(r - h));
      out.recv(r, h, (r + p - 1) % p, origin(r - 1 - h), Combine::copy);
    }
}

// Rank r's receive of round h waits for r - 1's receive of round h - 1 and its own, and takes one
// hop from r - 1 (estimate::ring_receive_finish, along the rank order); a rank is done once its
// last send has arrived too (its successor's last receive). Each hop carries the mean portion: the
// ring moves every portion over every hop but one. On nodes of several ranks a hop inside a node
// is the loopback's; in rank order on contiguous nodes one hop per node leaves it, so the ring is
// paced by the network only where it crosses nodes, and a late rank with neighbours on its node
// catches up at the loopback's pace.
double ring_allgatherv_predict(const GeneratorInput& in) {
  const int p = in.p;
  if (p < 2) return 0;
  std::vector<int> order(static_cast<size_t>(p));
  std::iota(order.begin(), order.end(), 0);
  const std::vector<double> a = estimate::arrivals_of(in);
  const std::vector<double> hop = estimate::ring_hop_times(in, order, in.bytes / p);
  const std::vector<double> got = estimate::ring_receive_finish(hop, a, p - 1);
  std::vector<double> finish(static_cast<size_t>(p));
  for (int r = 0; r < p; ++r) finish[r] = std::max(got[r], got[r + 1 < p ? r + 1 : 0]);
  return estimate::mean_elapsed(finish, a);
}

}  // namespace papcoll
