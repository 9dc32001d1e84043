// Cost model: predicted finish time of every rank for a schedule under per-rank arrival times and
// a Hockney model (docs/algorithms.md): a message of m bytes takes alpha + beta*m, reducing m
// bytes takes gamma*m, each rank sends one message and receives one message at a time, a transfer
// starts when both ranks have reached the step that holds it. As in the executor, sends are
// non-blocking: a step ends when its receives and reductions are done, while its sends keep the
// rank's send port busy and end the rank no earlier than their completion.
#pragma once

#include <cstdint>
#include <vector>

#include "model/link_model.hpp"
#include "model/node_layout.hpp"
#include "schedule/registry.hpp"
#include "schedule/schedule.hpp"

namespace papcoll {

struct RankCost {
  int rank = 0;
  double arrival = 0;
  double finish = 0;
  double elapsed = 0;
};

struct CostResult {
  std::vector<RankCost> ranks;
  double mean_elapsed = 0;
  double max_finish = 0;
};

// `bytes` is the size of the whole buffer; block b carries block_range(bytes, blocks, b) bytes.
// Empty `arrivals` means all ranks arrive at 0.
CostResult evaluate_cost(const Schedule& s, const std::vector<double>& arrivals,
                         const CostParams& cost, int64_t bytes);

// The same on nodes of several ranks (`nodes` null: one rank per node, the call above): a
// message between two ranks of one node takes cost.intra_alpha + cost.intra_beta m (alpha and
// beta where those are not positive); a message between nodes takes alpha + beta m and also
// occupies, for its beta m, the sending node's link out and the receiving node's link in, which
// every rank of a node shares: transfers that leave (or enter) a node at once queue there, as
// concurrent flows share one link's bandwidth (their latencies still overlap). A rank's messages
// inside its node and to other nodes use separate ports (shared memory and the network card
// work side by side); each port still carries one message at a time. Within a round the ranks'
// sends are placed side by side: every rank's first send, then every rank's second, ...
CostResult evaluate_cost(const Schedule& s, const std::vector<double>& arrivals,
                         const CostParams& cost, int64_t bytes, const NodeLayout* nodes);

// The same with a size per block and a heterogeneous network (the v-collectives, e.g. scatterv
// with block i = rank i's portion, schedule/portions.hpp): block b carries block_bytes[b] bytes
// (one entry per block), and a message of m bytes from i to j takes links->alpha(i, j) +
// links->beta(i, j) * m; a null `links` means cost.alpha and cost.beta for every pair. Reducing
// still costs cost.gamma per byte.
CostResult evaluate_cost(const Schedule& s, const std::vector<double>& arrivals,
                         const CostParams& cost, const std::vector<double>& block_bytes,
                         const LinkModel* links);

}  // namespace papcoll
