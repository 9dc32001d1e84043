// The table of algorithms. Adding an algorithm = one generator file + one row in registry.cpp.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "schedule/schedule.hpp"

namespace papcoll {

class LinkModel;
struct NodeLayout;

// Hockney parameters, in seconds and bytes: a message of m bytes costs alpha + beta*m, reducing m
// bytes costs gamma*m.
struct CostParams {
  double alpha = 5e-6;
  double beta = 1e-9;
  double gamma = 2.5e-10;
  // Ranks outnumber cores on some node (executor/core_sharing.hpp): transfers queue for the CPUs
  // instead of running in parallel, so pipelining cannot pay (pipeline_blocks).
  bool cores_shared = false;
  // The call runs over the shared-memory transport (every rank on one node,
  // executor/shared_transport.hpp): a send costs its sender one copy into its own segment and
  // never waits for the reader. Only late-fold reads it (its one-node form, the reduce's and the
  // all-reduce's).
  bool shared_memory = false;
  // The links between two ranks of one node (GeneratorInput::nodes), seconds and seconds per
  // byte; alpha and beta above are the links between nodes. Non-positive: the same as between
  // nodes. Read only where a node layout is given.
  double intra_alpha = 0;
  double intra_beta = 0;
  // What one step of papcoll's executor costs a rank beyond the links' latency, seconds (posting,
  // waiting, bookkeeping; measured per communicator, executor/step_overhead.hpp; set for `auto`'s
  // calls only). `auto`'s estimates add it to the latency of papcoll's candidates
  // (select/selection.cpp), and the pipelines' block counts to each round (pipeline_blocks); the
  // generators' own plans do not read it.
  double step_overhead = 0;
  // A node-wide exchange as it ran on this machine (executor/node_exchange.hpp: timed once per
  // communicator where `auto` weighs candidates on nodes of several ranks): every rank of a node
  // sending a piece of m bytes to every other at once took each rank (c - 1)(exchange_alpha +
  // exchange_beta m), the executor's step and its memory work included. Both 0: not measured; the
  // exchange is then the links' messages one after another, each with its step overhead. Read by
  // two-level-rsag, whose phases inside a node are such exchanges.
  double exchange_alpha = 0;
  double exchange_beta = 0;
  bool exchange_measured() const { return exchange_alpha > 0 || exchange_beta > 0; }
};

// Everything a generator may depend on. Generators are pure functions of this struct: the same
// input gives the same schedule bit for bit on every rank. A new field goes into same_input
// (schedule_cache.cpp) too, which tells a repeated call by comparing every field.
struct GeneratorInput {
  int p = 1;
  int blocks = 1;
  int root = -1;
  std::vector<double> arrivals;  // seconds, one per rank; empty means all equal
  CostParams cost;
  double bytes = 0;  // size of the whole buffer, for algorithms that derive a round time from it
  // Round time d in seconds for round-based arrival-aware generators (Clairvoyant reduce);
  // <= 0 means block_round_time(*this).
  double round_time = 0;
  // Implementation choice for algorithms that have several interchangeable ones producing the same
  // schedule (clairvoyant: "linear", "pairing", "segtree"); empty means the algorithm's default.
  std::string impl;
  // Per-rank element counts of the v-collectives (allgatherv, scatterv, gatherv): rank i's portion
  // has counts[i] elements of elem_bytes bytes each. Empty means every rank contributes equally.
  std::vector<long long> counts;
  double elem_bytes = 1;
  // Per-pair Hockney model of the network (src/model/link_model.hpp) for the model-based
  // scatterv/gatherv trees; null means every pair has cost.alpha and cost.beta.
  std::shared_ptr<const LinkModel> link_model;
  // Which ranks share a node (model/node_layout.hpp): ranks of one node share the node's link to
  // the network and talk to each other over cost.intra_alpha/intra_beta. Null: one rank per node.
  std::shared_ptr<const NodeLayout> nodes;
};

// Time to transfer and reduce one block under the Hockney model: the paper's tau
// (allreduce-slt-prr Sec. 4). Never below a tiny positive value so divisions stay finite.
double block_round_time(const GeneratorInput& in);

class ScheduleSink;

// A generator emits the ops of the ranks `out` asks for (schedule_sink.hpp): one rank on the
// call path, every rank for the verifier, the cost model and the tools.
using GeneratorFn = void (*)(const GeneratorInput& in, ScheduleSink& out);

// The part `auto` may give an algorithm (src/select/selection.hpp): an arrival-aware candidate,
// or a balanced schedule with an estimate (the circulant broadcast and all-gatherv, which auto
// runs on balanced calls; the balanced all-reduce and reduce rows, which the generic library
// model's textbook algorithms match, select/library_model.hpp).
enum class AutoRole { none, balanced, arrival_aware };

// One row of the algorithm table (registry.cpp), written with designated initialisers.
struct AlgorithmInfo {
  const char* name;
  Collective collective;
  const char* summary;
  GeneratorFn generate;
  int (*default_blocks)(int p) = nullptr;  // null: p blocks
  // Block count when it should follow the message size (pipelined broadcasts): the schedule's
  // `blocks` for in.p, in.bytes and in.cost. Null: default_blocks(p).
  int (*sized_blocks)(const GeneratorInput& in) = nullptr;
  bool reorders_reduction = false;  // needs a commutative op
  bool uses_arrivals = false;
  // Reads the per-pair link model (GeneratorInput::link_model, from options.model_file): the
  // scatterv/gatherv trees built on predicted link times. The others ignore a model file.
  bool uses_link_model = false;
  // uses_arrivals only: the arrivals as the generator reads them after quantisation (an arrival
  // order, integer slots or rounds), as bytes. The generator depends on the arrivals only through
  // this, so two inputs with the same key (and the same p, blocks, root) give the same schedule:
  // the key of the per-communicator schedule cache (src/api/schedule_source.hpp).
  std::string (*arrival_key)(const GeneratorInput& in) = nullptr;
  AutoRole auto_role = AutoRole::none;
  // What `auto` costs the algorithm with (every row with an auto_role has one): the cost model's
  // mean elapsed time (own arrival to own finish, averaged over ranks) of the schedule for `in`
  // under in.arrivals, estimated in O(p) without building the schedule (estimate.hpp); for the
  // rows with a generation_cost, from a cached Clairvoyant simulation (finish_rounds.hpp).
  double (*predict)(const GeneratorInput& in) = nullptr;
  // Rows whose schedule is a global computation that grows faster than p (Clairvoyant's greedy
  // simulation, late-fold's early group): the seconds every rank spends, on the call's path, on
  // predict and on generating the schedule for a pattern it has not seen, as the model of that
  // work (kSimulationSecondsPerCell). `auto` adds it to the row's estimate, and does not even call
  // predict when it alone exceeds the best estimate so far (docs/algorithms.md, "auto"). Null:
  // the row's work is O(p log p) or less, which auto does not charge.
  double (*generation_cost)(const GeneratorInput& in) = nullptr;
  // With cost.shared_memory set (reduce and all-reduce set it when the shared-memory transport
  // can carry the call), every rank's sends of a block carry the same data: no rank receives into
  // a block between two sends of it (one_version_schedule in src/verify/verifier.hpp; tested for
  // every p up to 64). A reduction so marked runs over that transport, which publishes a block at
  // its first send (src/executor/shared_transport.hpp). All-gatherv's schedules only copy and are
  // one-version by construction.
  bool one_version = false;
  // predict and generate read GeneratorInput::nodes: the row knows which ranks share a node and
  // its link (the two-level rows). On a layout of several ranks per node `auto` costs only such
  // rows and those costed_on_nodes (a flat row's estimate assumes a link per rank).
  bool topology_aware = false;
  // A flat row whose predict reads GeneratorInput::nodes: its schedule ignores the layout, but its
  // estimate costs each hop inside a node or between nodes (PRR's all-reduce and the ring
  // all-gatherv, whose rings run mostly inside nodes). `auto` weighs such rows on layouts of
  // several ranks per node alongside the topology-aware ones; with one rank per node the estimate
  // is the flat one.
  bool costed_on_nodes = false;
  // `auto` considers an arrival-aware row only from this many ranks on: a row built for a scale
  // where another's planning costs more than it saves can lose to that row below it.
  int auto_min_p = 0;
  // ... and up to this many (0: no bound): above it another row does the same with less planning.
  int auto_max_p = 0;
};

// The whole schedule of `algo` for `in`: every rank's steps. Throws std::invalid_argument on input
// the algorithm cannot take (a root out of range, ...).
Schedule generate_schedule(const AlgorithmInfo& algo, const GeneratorInput& in);
// Rank `rank`'s part only, without computing the other ranks' (equal to
// generate_schedule(algo, in).ranks[rank]).
RankSchedule generate_rank(const AlgorithmInfo& algo, const GeneratorInput& in, int rank);
// The schedule's block count for `in`: in.blocks (at least 1), or p for scatterv/gatherv, whose
// block i is rank i's portion.
int schedule_blocks(const AlgorithmInfo& algo, const GeneratorInput& in);

// default_blocks(p), or p when the row names none.
inline int default_blocks_for(const AlgorithmInfo& algo, int p) {
  return algo.default_blocks != nullptr ? algo.default_blocks(p) : p;
}

// The block count a call uses when the caller names none: algo.sized_blocks(in) or
// algo.default_blocks(in.p).
int default_block_count(const AlgorithmInfo& algo, const GeneratorInput& in);

// Blocks minimising (n - 1 + extra_rounds) * (alpha + beta * bytes / n), the time of a pipeline
// of n blocks that needs extra_rounds rounds beyond one per block (Traff 2023, Sect. 3: block size
// proportional to sqrt(bytes / log p) for the circulant broadcast): n = sqrt(extra_rounds *
// beta * bytes / alpha) times `factor`, rounded, at least 1. A round costs the executor's step
// overhead too where it was measured (cost.step_overhead, set for `auto`'s calls): alpha plus
// that, which on a fast network is most of a round (opa-32x32, 1024 ranks: two-level-rsag's
// 5248 blocks from the links alone, about 1150 with the 19 us overhead; one rank 1 ms late it
// took P = 3.6 ms at 5248, 1.10 at 1024, 1.13 at 256, docs/calibration.md). One block when
// cost.cores_shared: the transfers then queue for the same CPUs, so the total copying is the same
// for every n and each extra round only adds scheduler switches (measured, docs/circulant.md).
//
// kPipelineBlockFactor (the all-gatherv) is below the optimum: every round also costs papcoll's
// own bookkeeping (a datatype over one range per origin), which alpha does not include
// (docs/circulant.md).
inline constexpr double kPipelineBlockFactor = 0.07;
int pipeline_blocks(double bytes, int extra_rounds, const CostParams& cost,
                    double factor = kPipelineBlockFactor);
// The broadcasts (circulant, chain) take the Hockney optimum itself: their rounds carry one block
// each, and with the network's own alpha and beta (calibrated) the optimum was the fastest block
// count measured (docs/circulant.md, "The constant, measured").
inline constexpr double kBroadcastBlockFactor = 1.0;

// The size from which a paced send is synchronous (RankSchedule::paced_bytes; docs/algorithms.md,
// "Paced sends"): alpha / beta, where a message's time starts to be mostly bandwidth, so several
// rounds' messages on one link cost more than a synchronous send's acknowledgement (about alpha)
// does. At most kPacedBytesMost (and that where alpha or beta is unknown): 2.7 KiB on the gige
// links, 5 KiB over shared memory, 16 KiB on InfiniBand-class links.
int64_t paced_send_bytes(const CostParams& cost);

std::span<const AlgorithmInfo> all_algorithms();
const AlgorithmInfo* find_algorithm(Collective c, std::string_view name);
std::vector<const AlgorithmInfo*> algorithms_for(Collective c);

// Positions sorted by arrival time, ties broken by rank; equal arrivals give the identity order.
std::vector<int> arrival_order(int p, const std::vector<double>& arrivals);

}  // namespace papcoll
