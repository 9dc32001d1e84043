#include "select/library_estimates.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <utility>

#include "model/node_layout.hpp"
#include "schedule/estimate_topology.hpp"
#include "schedule/estimate_tree.hpp"
#include "schedule/plan_memo.hpp"
#include "select/library_rules.hpp"

namespace papcoll {
namespace library_estimates_detail {  // file-local (unity builds: a name of its own)

using estimate::LockstepStep;
using estimate::NodeLinks;
using estimate::RankTree;
using estimate::Serve;
using estimate::TreeTransfer;

double latest_of(const std::vector<double>& v) {
  return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
}

// Everything one algorithm's estimate reads.
struct Ctx {
  const LibraryCall& call;
  const LibraryAlgorithm& a;
  const GeneratorInput& in;
  const NodeLinks links;
  const double eager;
  Ctx(const LibraryCall& c, const LibraryAlgorithm& al, const GeneratorInput& i)
      : call(c), a(al), in(i), links(i), eager(library_eager_bytes(c.library, i)) {}
  int p() const { return in.p; }
  double m() const { return in.bytes; }
  double gamma() const { return in.cost.gamma; }
  int root() const { return in.root >= 0 && in.root < in.p ? in.root : 0; }
};

std::vector<double> all_finish_at(int p, double t) {
  return std::vector<double>(static_cast<size_t>(p), t);
}

// ---- lockstep steps -----------------------------------------------------------------------

// Every rank r sends `bytes` to r + shift (a ring step).
double shift_step(const NodeLinks& links, int shift, double bytes) {
  const int p = links.p();
  if (links.one_rank_per_node()) return links.message(0, std::min(1, p - 1), bytes);
  LockstepStep s(links);
  for (int r = 0; r < p; ++r) s.add(r, (r + shift) % p, bytes);
  return s.time();
}

// The power-of-two fold of the butterflies: of the first 2 rem ranks, one of each pair (2i,
// 2i + 1) leaves the butterfly: MPICH's (and SMPI's) 2i hands its vector to 2i + 1, Open MPI's
// redscat_allgather keeps 2i. `real(v)` is virtual rank v's rank.
struct Butterfly {
  int p, pof2, rem;
  bool keep_even;
  Butterfly(int p_, bool keep_even_)
      : p(p_), pof2(pof2_floor(p_)), rem(p_ - pof2_floor(p_)), keep_even(keep_even_) {}
  int real(int v) const { return v < rem ? 2 * v + (keep_even ? 0 : 1) : v + rem; }
  int folded(int i) const { return 2 * i + (keep_even ? 1 : 0); }  // leaves
  int kept(int i) const { return 2 * i + (keep_even ? 0 : 1); }
};

// The fold's pairs send `bytes` from one to the other (to_kept: toward the rank that stays), or
// both ways at once.
double fold_step(const NodeLinks& links, const Butterfly& b, double bytes, bool to_kept,
                 bool both_ways = false) {
  if (b.rem == 0) return 0;
  if (links.one_rank_per_node()) return links.message(0, 1, bytes);
  LockstepStep s(links);
  for (int i = 0; i < b.rem; ++i) {
    if (to_kept || both_ways) s.add(b.folded(i), b.kept(i), bytes);
    if (!to_kept || both_ways) s.add(b.kept(i), b.folded(i), bytes);
  }
  return s.time();
}

// Which steps a butterfly runs (with b.keep_even and the input's p and bytes they are all of it).
enum class ButterflySteps : uint64_t { doubling = 1, halving = 2, halving_gather = 3 };

// The butterfly's transfer times (estimate::butterfly_durations), kept per layout: `auto` weighs
// the library on every new arrival pattern, and on 64 nodes of 16 these were about half of
// choosing an all-reduce. Kept up to kKeptDurations entries (1 MB; p = 4096 fits), so a thread
// holds at most 3 MB of them; larger butterflies are costed afresh.
constexpr size_t kKeptDurations = size_t{1} << 17;

std::shared_ptr<const std::vector<double>> butterfly_durations_of(
    const Ctx& c, const Butterfly& b, ButterflySteps kind, const std::vector<int>& real,
    const std::vector<estimate::ButterflyStep>& steps) {
  auto build = [&](const GeneratorInput&) {
    return estimate::butterfly_durations(c.in, real, steps);
  };
  if (real.size() * steps.size() > kKeptDurations)
    return std::make_shared<const std::vector<double>>(build(c.in));
  thread_local PlanMemo<std::vector<double>, false, 3> memo;
  GeneratorInput layout = c.in;  // what the times read: not the arrivals
  layout.arrivals.clear();
  return memo.get(layout, build, {static_cast<uint64_t>(kind), b.keep_even ? 1u : 0u});
}

// Every rank's finish when the pairs fold (pre), the kept ranks run the butterfly `steps` pair by
// pair (estimate::butterfly_finish), and the pairs unfold (post).
std::vector<double> folded_butterfly(const Ctx& c, const Butterfly& b,
                                     const std::vector<double>& ready, double pre,
                                     ButterflySteps kind,
                                     const std::vector<estimate::ButterflyStep>& steps,
                                     double post) {
  std::vector<int> real(static_cast<size_t>(b.pof2));
  std::vector<double> start(static_cast<size_t>(b.pof2));
  for (int v = 0; v < b.pof2; ++v) {
    real[static_cast<size_t>(v)] = b.real(v);
    start[static_cast<size_t>(v)] = v < b.rem ? std::max(ready[static_cast<size_t>(2 * v)],
                                                         ready[static_cast<size_t>(2 * v + 1)]) +
                                                    pre
                                              : ready[static_cast<size_t>(b.real(v))];
  }
  const std::vector<double> done = estimate::butterfly_finish(
      *butterfly_durations_of(c, b, kind, real, steps), steps, c.gamma(), std::move(start));
  std::vector<double> finish(static_cast<size_t>(b.p));
  for (int v = 0; v < b.pof2; ++v)
    finish[static_cast<size_t>(b.real(v))] = done[static_cast<size_t>(v)] + (v < b.rem ? post : 0);
  for (int i = 0; i < b.rem; ++i)
    finish[static_cast<size_t>(b.folded(i))] = finish[static_cast<size_t>(b.kept(i))];
  return finish;
}

// The halving reduce-scatter (masks 1, 2, ...: pieces m/2, m/4, ...) and, with `gather`, the
// doubling all-gather of the same pieces in reverse.
std::vector<estimate::ButterflyStep> halving_steps(int pof2, double m, bool gather) {
  std::vector<estimate::ButterflyStep> steps;
  double size = m;
  for (int mask = 1; mask < pof2; mask <<= 1) {
    size /= 2;
    steps.push_back({mask, size, size});
  }
  for (int k = static_cast<int>(steps.size()) - 1; gather && k >= 0; --k)
    steps.push_back({steps[static_cast<size_t>(k)].mask, steps[static_cast<size_t>(k)].bytes, 0});
  return steps;
}

// ---- all-reduce --------------------------------------------------------------------------

std::vector<double> recursive_doubling(const Ctx& c, const std::vector<double>& ready) {
  const Butterfly b(c.p(), false);
  const double m = c.m();
  std::vector<estimate::ButterflyStep> steps;
  for (int mask = 1; mask < b.pof2; mask <<= 1) steps.push_back({mask, m, m});
  const double pre = b.rem > 0 ? fold_step(c.links, b, m, true) + c.gamma() * m : 0;
  return folded_butterfly(c, b, ready, pre, ButterflySteps::doubling, steps,
                          fold_step(c.links, b, m, false));
}

std::vector<double> rabenseifner(const Ctx& c, const std::vector<double>& ready, bool ompi_fold) {
  const Butterfly b(c.p(), ompi_fold);
  const double m = c.m(), g = c.gamma();
  double pre = 0;
  if (b.rem > 0) {
    if (ompi_fold)  // the pair swaps halves, reduces one each, and 2i + 1 sends its half to 2i
      pre = fold_step(c.links, b, m / 2, true, true) + g * m / 2 +
            fold_step(c.links, b, m / 2, true);
    else
      pre = fold_step(c.links, b, m, true) + g * m;
  }
  return folded_butterfly(c, b, ready, pre, ButterflySteps::halving_gather,
                          halving_steps(b.pof2, m, true), fold_step(c.links, b, m, false));
}

std::vector<double> ring_allreduce(const Ctx& c, const std::vector<double>& ready) {
  const int p = c.p();
  const double chunk = c.m() / p;
  const double t = (p - 1) * (2 * shift_step(c.links, 1, chunk) + c.gamma() * chunk);
  return all_finish_at(p, latest_of(ready) + t);
}

std::vector<double> segmented_ring(const Ctx& c, const std::vector<double>& ready) {
  // allreduce-ompi-ring-segmented.cpp / coll_base_allreduce.c: the reduce-scatter in phases of
  // p segments, the all-gather of whole blocks.
  const int p = c.p();
  const double t = c.call.type_bytes > 0 ? c.call.type_bytes : 1;
  const double count = std::round(c.m() / t),
               seg = std::max(1.0, std::round(c.a.segment_bytes / t));
  double phases = std::floor(count / (p * seg));
  const double rest = std::fmod(count, p * seg);
  if (rest >= p && rest > p * seg / 2) phases += 1;
  phases = std::max(1.0, phases);
  const double chunk = c.m() / p;
  const double time = phases * (p - 1) * shift_step(c.links, 1, chunk / phases) +
                      (p - 1) * c.gamma() * chunk + (p - 1) * shift_step(c.links, 1, chunk);
  return all_finish_at(p, latest_of(ready) + time);
}

// ---- trees ------------------------------------------------------------------------------

Serve serve_of(const LibraryAlgorithm& a) {
  return a.concurrent ? Serve::all_at_once : Serve::one_at_a_time;
}

TreeTransfer whole_or_segments(const Ctx& c, double bytes, double segment, bool reduce) {
  TreeTransfer x;
  x.eager_bytes = c.eager;
  x.reduce = reduce;
  if (segment > 0 && segment < bytes) {
    x.segments = static_cast<int>(std::ceil(bytes / segment));
    x.segment_bytes = bytes / x.segments;
    // Open MPI's segmented trees (and SMPI's copies of them) keep two segments in flight.
    x.in_flight = 2;
  } else {
    x.segment_bytes = bytes;
  }
  return x;
}

RankTree bcast_tree(const Ctx& c) {
  const int p = c.p(), root = c.root();
  const Serve serve = serve_of(c.a);
  switch (c.a.algo) {
    case LibraryAlgo::linear: {
      std::vector<int> children;
      for (int r = 0; r < p; ++r) children.push_back(r);
      return estimate::flat_tree(p, root, children, serve);
    }
    case LibraryAlgo::chain: return estimate::chain_tree(p, root, std::max(1, c.a.fanout), serve);
    case LibraryAlgo::binary:
    case LibraryAlgo::split_binary: return estimate::kary_tree(p, root, 2, serve);
    case LibraryAlgo::ompi_binomial: return estimate::ompi_bmtree(p, root, serve);
    case LibraryAlgo::knomial:
      // MVAPICH's (SMPI's ompi selector) serves one level at a time, Open MPI's every child.
      return estimate::knomial_tree(p, root, std::max(2, c.a.fanout),
                                    c.call.library == MpiLibrary::smpi_ompi, serve);
    default: return estimate::binomial_tree(p, root, true, Serve::one_at_a_time);
  }
}

std::vector<double> tree_bcast(const Ctx& c, const std::vector<double>& ready) {
  const double m = c.m();
  if (c.a.algo == LibraryAlgo::split_binary) {
    // Each half travels down one subtree of the binary tree, then each rank swaps halves with a
    // rank of the other subtree.
    const TreeTransfer x = whole_or_segments(c, m / 2, c.a.segment_bytes, false);
    const std::vector<double> f = estimate::tree_bcast_finish(c.in, bcast_tree(c), x, ready);
    return all_finish_at(c.p(), latest_of(f) + shift_step(c.links, 1, m / 2));
  }
  const TreeTransfer x = whole_or_segments(c, m, c.a.segment_bytes, false);
  return estimate::tree_bcast_finish(c.in, bcast_tree(c), x, ready);
}

// van de Geijn: a binomial scatter of p chunks, then an all-gather of them (ring or doubling).
std::vector<double> scatter_allgather(const Ctx& c, const std::vector<double>& ready, bool ring) {
  const int p = c.p(), root = c.root();
  const double chunk = c.m() / p;
  const RankTree t = estimate::binomial_tree(p, root, true, Serve::one_at_a_time);
  TreeTransfer x;
  x.eager_bytes = c.eager;
  x.edge_bytes.assign(static_cast<size_t>(p), 0.0);
  for (int r = 0; r < p; ++r) {  // relative v's subtree: [v, v + lowest bit of v) below p
    const int v = ((r - root) % p + p) % p;
    if (v == 0) continue;
    const int64_t low = v & -v;
    x.edge_bytes[static_cast<size_t>(r)] = static_cast<double>(std::min<int64_t>(low, p - v)) *
                                           chunk;
  }
  const std::vector<double> scattered = estimate::tree_bcast_finish(c.in, t, x, ready);
  double gather = 0;
  if (ring) {
    gather = (p - 1) * shift_step(c.links, 1, chunk);
  } else {
    for (int64_t mask = 1; mask < p; mask <<= 1) {
      const double bytes = static_cast<double>(std::min<int64_t>(mask, p - mask)) * chunk;
      if (c.links.one_rank_per_node()) {
        gather += c.links.message(0, 1, bytes);
        continue;
      }
      LockstepStep s(c.links);
      for (int r = 0; r < p; ++r) {
        const int64_t partner = r ^ mask;
        if (partner < p) s.add(r, static_cast<int>(partner), bytes);
      }
      gather += s.time();
    }
  }
  return all_finish_at(p, latest_of(scattered) + gather);
}

RankTree reduce_tree(const Ctx& c) {
  const int p = c.p(), root = c.root();
  switch (c.a.algo) {
    case LibraryAlgo::linear: {  // the root takes p - 1, p - 2, ..., 0
      std::vector<int> children;
      for (int r = p - 1; r >= 0; --r) children.push_back(r);
      return estimate::flat_tree(p, root, children, Serve::one_at_a_time);
    }
    case LibraryAlgo::chain:
      return estimate::chain_tree(p, root, std::max(1, c.a.fanout), Serve::one_at_a_time);
    case LibraryAlgo::binary: return estimate::kary_tree(p, root, 2, Serve::one_at_a_time);
    case LibraryAlgo::in_order_binary:
      return estimate::in_order_binary_tree(p, Serve::one_at_a_time);
    case LibraryAlgo::knomial:
      return estimate::knomial_tree(p, root, std::max(2, c.a.fanout), false, Serve::one_at_a_time);
    default: return estimate::binomial_tree(p, root, false, Serve::one_at_a_time);
  }
}

std::vector<double> tree_reduce(const Ctx& c, const std::vector<double>& ready) {
  const TreeTransfer x = whole_or_segments(c, c.m(), c.a.segment_bytes, true);
  std::vector<double> f = estimate::tree_reduce_finish(c.in, reduce_tree(c), x, ready);
  const int top = c.p() - 1, root = c.root();
  if (c.a.algo == LibraryAlgo::in_order_binary && root != top) {
    // The in-order tree ends at p - 1, which sends the result to the root.
    const double start = std::max(f[static_cast<size_t>(top)], ready[static_cast<size_t>(root)]);
    const double done = start + c.links.message(top, root, c.m());
    f[static_cast<size_t>(root)] = std::max(f[static_cast<size_t>(root)], done);
    if (c.m() > c.eager) f[static_cast<size_t>(top)] = done;
  }
  return f;
}

// Rabenseifner's reduce (MPICH's MPIR_Reduce_intra_reduce_scatter_gather, SMPI's
// reduce-scatter-gather.cpp): of the first 2 rem ranks the odd ones hand their vector to the even
// ones and are done, the halving reduce-scatter, then a binomial gather of the pieces to the
// root; a folded (odd) root first gets virtual rank 0's piece and gathers in its place.
std::vector<double> reduce_scatter_gather(const Ctx& c, const std::vector<double>& ready) {
  const Butterfly b(c.p(), true);
  const double m = c.m();
  const double pre = b.rem > 0 ? fold_step(c.links, b, m, true) + c.gamma() * m : 0;
  // Every kept rank holds its piece at `finish`.
  std::vector<double> finish = folded_butterfly(c, b, ready, pre, ButterflySteps::halving,
                                                halving_steps(b.pof2, m, false), 0);
  for (int i = 0; i < b.rem; ++i) {  // a folded rank is done once its vector is handed on
    const int f = b.folded(i), k = b.kept(i);
    finish[static_cast<size_t>(f)] =
        m > c.eager ? std::max(ready[static_cast<size_t>(f)], ready[static_cast<size_t>(k)]) +
                          c.links.message(f, k, m)
                    : ready[static_cast<size_t>(f)];
  }
  const int root = c.root();
  const bool folded_root = root < 2 * b.rem && root % 2 == 1;
  // The gather on the kept ranks (the folded root in virtual rank 0's place): a binomial tree
  // whose edges carry a subtree's pieces.
  auto real = [&](int v) { return folded_root && v == 0 ? root : b.real(v); };
  GeneratorInput sub = c.in;
  sub.p = b.pof2;
  sub.root = 0;
  sub.arrivals.clear();
  sub.nodes = nullptr;
  if (!c.links.one_rank_per_node()) {
    auto layout = std::make_shared<NodeLayout>();
    for (int v = 0; v < b.pof2; ++v) layout->node_of.push_back(c.links.node(real(v)));
    // Renumber the nodes by their lowest virtual rank, as NodeLayout expects.
    std::vector<int> id(static_cast<size_t>(c.links.nodes()), -1);
    int next = 0;
    for (int& n : layout->node_of) {
      if (id[static_cast<size_t>(n)] < 0) id[static_cast<size_t>(n)] = next++;
      n = id[static_cast<size_t>(n)];
    }
    sub.nodes = layout;
  }
  int vroot = 0;
  for (int v = 0; v < b.pof2; ++v)
    if (real(v) == root) vroot = v;
  std::vector<double> vready(static_cast<size_t>(b.pof2));
  for (int v = 0; v < b.pof2; ++v)
    vready[static_cast<size_t>(v)] = finish[static_cast<size_t>(real(v))];
  if (folded_root) {
    const double piece = b.real(0) == root ? 0 : c.links.message(b.real(0), root, m / b.pof2);
    const double got =
        std::max(finish[static_cast<size_t>(b.real(0))], ready[static_cast<size_t>(root)]) + piece;
    finish[static_cast<size_t>(b.real(0))] =
        m / b.pof2 > c.eager ? got : finish[static_cast<size_t>(b.real(0))];
    vready[0] = got;
  }
  const RankTree t = estimate::binomial_tree(b.pof2, vroot, false, Serve::one_at_a_time);
  TreeTransfer x;
  x.eager_bytes = c.eager;
  x.edge_bytes.assign(static_cast<size_t>(b.pof2), 0.0);
  for (int v = 0; v < b.pof2; ++v) {
    const int rel = ((v - vroot) % b.pof2 + b.pof2) % b.pof2;
    if (rel != 0)
      x.edge_bytes[static_cast<size_t>(v)] = m / b.pof2 * static_cast<double>(rel & -rel);
  }
  const std::vector<double> gathered = estimate::tree_reduce_finish(sub, t, x, vready);
  for (int v = 0; v < b.pof2; ++v)
    finish[static_cast<size_t>(real(v))] = gathered[static_cast<size_t>(v)];
  return finish;
}

// ---- per node, then among node leaders ----------------------------------------------------

// The nodes' ranks, ascending, from the layout (none: every rank its own node).
std::vector<std::vector<int>> node_ranks(const GeneratorInput& in) {
  std::vector<std::vector<int>> nodes;
  if (!several_ranks_per_node(in)) {
    for (int r = 0; r < in.p; ++r) nodes.push_back({r});
    return nodes;
  }
  nodes.resize(static_cast<size_t>(in.nodes->nodes()));
  for (int r = 0; r < in.p; ++r)
    nodes[static_cast<size_t>(in.nodes->node_of[static_cast<size_t>(r)])].push_back(r);
  return nodes;
}

// A call of the same collective on a subset of ranks (one node's, over its intra links; or the
// leaders', one per node, over the network).
GeneratorInput sub_input(const GeneratorInput& in, int p, bool intra, int root = 0) {
  GeneratorInput s;
  s.p = p;
  s.root = root;
  s.bytes = in.bytes;
  s.cost = in.cost;
  if (intra) {
    if (in.cost.intra_alpha > 0) s.cost.alpha = in.cost.intra_alpha;
    if (in.cost.intra_beta > 0) s.cost.beta = in.cost.intra_beta;
  }
  return s;
}

std::vector<double> pick_ranks(const std::vector<double>& v, const std::vector<int>& ranks) {
  std::vector<double> out;
  out.reserve(ranks.size());
  for (int r : ranks) out.push_back(v[static_cast<size_t>(r)]);
  return out;
}

// Runs the flat MPICH rule of `c` (allreduce, reduce, bcast) on a subset.
std::vector<double> sub_finish(Collective c, const LibraryCall& call, const GeneratorInput& sub,
                               const std::vector<double>& ready, MpiLibrary rules) {
  LibraryCall sc = call;
  sc.collective = c;
  sc.library = rules;
  return library_algorithm_finish(sc, library_algorithm(sc, sub), sub, ready);
}

std::vector<double> two_level_allreduce(const Ctx& c, const std::vector<double>& ready) {
  // SMPI's mvapich2_two_level: an all-reduce in each node (the mpich selector's), recursive
  // doubling among the node leaders (each node's lowest rank), a broadcast in each node.
  // MPICH's composition alpha: a reduce in each node, the leaders' all-reduce by MPICH's rule,
  // a broadcast in each node. Each node's and the leaders' algorithms are MPICH's flat ones.
  const bool smpi = c.call.library == MpiLibrary::smpi_mpich;
  const auto nodes = node_ranks(c.in);
  const int n = static_cast<int>(nodes.size());
  std::vector<double> after_intra = ready, leader_ready(static_cast<size_t>(n));
  for (int k = 0; k < n; ++k) {
    const auto& rk = nodes[static_cast<size_t>(k)];
    if (rk.size() > 1) {
      const GeneratorInput sub = sub_input(c.in, static_cast<int>(rk.size()), true);
      const auto f = sub_finish(smpi ? Collective::allreduce : Collective::reduce, c.call, sub,
                                pick_ranks(ready, rk), MpiLibrary::mpich);
      for (size_t i = 0; i < rk.size(); ++i) after_intra[static_cast<size_t>(rk[i])] = f[i];
    }
    leader_ready[static_cast<size_t>(k)] = after_intra[static_cast<size_t>(rk[0])];
  }
  std::vector<double> finish = after_intra;
  std::vector<double> leaders_done = leader_ready;
  if (n > 1) {
    const GeneratorInput sub = sub_input(c.in, n, false);
    LibraryCall lc = c.call;
    lc.library = MpiLibrary::mpich;
    const LibraryAlgorithm la = smpi ? LibraryAlgorithm{LibraryAlgo::recursive_doubling, "rdb"}
                                     : library_algorithm(lc, sub);
    leaders_done = library_algorithm_finish(lc, la, sub, leader_ready);
  }
  for (int k = 0; k < n; ++k) {
    const auto& rk = nodes[static_cast<size_t>(k)];
    std::vector<double> r = pick_ranks(after_intra, rk);
    r[0] = leaders_done[static_cast<size_t>(k)];
    if (rk.size() > 1) {
      const GeneratorInput sub = sub_input(c.in, static_cast<int>(rk.size()), true);
      r = sub_finish(Collective::bcast, c.call, sub, r, MpiLibrary::mpich);
    }
    for (size_t i = 0; i < rk.size(); ++i) finish[static_cast<size_t>(rk[i])] = r[i];
  }
  return finish;
}

std::vector<double> two_level_reduce(const Ctx& c, const std::vector<double>& ready) {
  // SMPI's mvapich2_two_level reduce: on one node a k-nomial reduce (radix 4) over the whole
  // communicator; else a reduce in each node to its lowest rank, the leaders' reduce to the
  // root's leader (both the mpich selector's), which hands the result to the root.
  const auto nodes = node_ranks(c.in);
  const int n = static_cast<int>(nodes.size()), root = c.root();
  if (n == 1 && c.p() > 1) {
    const LibraryAlgorithm k{LibraryAlgo::knomial, "mvapich2_knomial", 0, 4};
    return library_algorithm_finish(c.call, k, c.in, ready);
  }
  std::vector<double> finish = ready, leader_ready(static_cast<size_t>(n));
  int root_node = 0;
  for (int k = 0; k < n; ++k) {
    const auto& rk = nodes[static_cast<size_t>(k)];
    if (std::find(rk.begin(), rk.end(), root) != rk.end()) root_node = k;
    if (rk.size() > 1) {
      const GeneratorInput sub = sub_input(c.in, static_cast<int>(rk.size()), true);
      const auto f =
          sub_finish(Collective::reduce, c.call, sub, pick_ranks(ready, rk), MpiLibrary::mpich);
      for (size_t i = 0; i < rk.size(); ++i) finish[static_cast<size_t>(rk[i])] = f[i];
    }
    leader_ready[static_cast<size_t>(k)] = finish[static_cast<size_t>(rk[0])];
  }
  if (n > 1) {
    const GeneratorInput sub = sub_input(c.in, n, false, root_node);
    const auto f = sub_finish(Collective::reduce, c.call, sub, leader_ready, MpiLibrary::mpich);
    for (int k = 0; k < n; ++k)
      finish[static_cast<size_t>(nodes[static_cast<size_t>(k)][0])] = f[static_cast<size_t>(k)];
  }
  const int leader = nodes[static_cast<size_t>(root_node)][0];
  if (leader != root) {
    const double done =
        std::max(finish[static_cast<size_t>(leader)], ready[static_cast<size_t>(root)]) +
        c.links.message(leader, root, c.m());
    finish[static_cast<size_t>(root)] = std::max(finish[static_cast<size_t>(root)], done);
    if (c.m() > c.eager) finish[static_cast<size_t>(leader)] = done;
  }
  return finish;
}

std::vector<double> smp_binomial(const Ctx& c, const std::vector<double>& ready) {
  // bcast-SMP-binomial.cpp (SMPI's mpich selector) and MPICH's composition alpha: the root's
  // data goes to rank 0 (SMPI) or the root's node leader first, then a binomial tree among the
  // node leaders, then one in each node.
  const auto nodes = node_ranks(c.in);
  const int n = static_cast<int>(nodes.size()), root = c.root();
  const bool smpi = c.call.library == MpiLibrary::smpi_mpich;
  std::vector<double> finish = ready, r0 = ready;
  int source_node = 0;
  for (int k = 0; k < n; ++k)
    if (std::find(nodes[static_cast<size_t>(k)].begin(), nodes[static_cast<size_t>(k)].end(),
                  root) != nodes[static_cast<size_t>(k)].end())
      source_node = k;
  if (smpi) source_node = 0;
  const int first = nodes[static_cast<size_t>(source_node)][0];
  if (root != first) {
    const double done =
        std::max(ready[static_cast<size_t>(root)], ready[static_cast<size_t>(first)]) +
        c.links.message(root, first, c.m());
    r0[static_cast<size_t>(first)] = done;
    finish[static_cast<size_t>(root)] = c.m() > c.eager ? done : ready[static_cast<size_t>(root)];
  }
  std::vector<double> leader_ready(static_cast<size_t>(n));
  for (int k = 0; k < n; ++k)
    leader_ready[static_cast<size_t>(k)] =
        r0[static_cast<size_t>(nodes[static_cast<size_t>(k)][0])];
  std::vector<double> leaders_done = leader_ready;
  if (n > 1) {
    const GeneratorInput sub = sub_input(c.in, n, false, source_node);
    if (smpi) {
      const LibraryAlgorithm b{LibraryAlgo::binomial, "binomial"};
      leaders_done = library_algorithm_finish(c.call, b, sub, leader_ready);
    } else {
      leaders_done = sub_finish(Collective::bcast, c.call, sub, leader_ready, MpiLibrary::mpich);
    }
  }
  for (int k = 0; k < n; ++k) {
    const auto& rk = nodes[static_cast<size_t>(k)];
    std::vector<double> r = pick_ranks(ready, rk);
    r[0] = leaders_done[static_cast<size_t>(k)];
    if (rk.size() > 1) {
      const GeneratorInput sub = sub_input(c.in, static_cast<int>(rk.size()), true);
      const LibraryAlgorithm b{LibraryAlgo::binomial, "binomial"};
      r = library_algorithm_finish(c.call, b, sub, r);
    }
    // The root also takes part in the trees after handing its data on.
    for (size_t i = 0; i < rk.size(); ++i)
      finish[static_cast<size_t>(rk[i])] =
          rk[i] == root ? std::max(finish[static_cast<size_t>(root)], r[i]) : r[i];
  }
  return finish;
}

// ---- all-gatherv, scatterv, gatherv -------------------------------------------------------

std::vector<double> library_portions(const GeneratorInput& in) {
  std::vector<double> b(static_cast<size_t>(in.p), in.p > 0 ? in.bytes / in.p : 0);
  if (static_cast<int>(in.counts.size()) == in.p)
    for (int r = 0; r < in.p; ++r)
      b[static_cast<size_t>(r)] = static_cast<double>(in.counts[static_cast<size_t>(r)]) *
                                  in.elem_bytes;
  return b;
}

// How long the all-gatherv's steps take once every rank is there (they start together).
double allgatherv_steps_time(const Ctx& c) {
  const int p = c.p();
  const std::vector<double> part = library_portions(c.in);
  const double largest = latest_of(part), mean = c.m() / std::max(1, p);
  double t = 0;
  switch (c.a.algo) {
    case LibraryAlgo::ring:  // p - 1 steps, each rank forwarding one portion
      t = (p - 1) * shift_step(c.links, 1, largest);
      break;
    case LibraryAlgo::bruck:  // step k: to r - 2^k, the portions of min(2^k, p - 2^k) ranks
      for (int64_t k = 1; k < p; k <<= 1)
        t += shift_step(c.links, static_cast<int>(p - k),
                        mean * static_cast<double>(std::min<int64_t>(k, p - k)));
      break;
    case LibraryAlgo::neighbor_exchange:  // p / 2 steps with alternating neighbours, 2 portions
      for (int s = 0; s < p / 2; ++s) {
        const double bytes = s == 0 ? largest : 2 * largest;
        if (c.links.one_rank_per_node()) {
          t += c.links.message(0, 1, bytes);
          continue;
        }
        LockstepStep st(c.links);
        for (int r = 0; r < p; ++r) {
          const bool right = (r % 2 == 0) == (s % 2 == 0);
          st.add(r, right ? (r + 1) % p : (r + p - 1) % p, bytes);
        }
        t += st.time();
      }
      break;
    case LibraryAlgo::allgather_doubling:
      for (int64_t mask = 1; mask < p; mask <<= 1) {
        const double bytes = mean * static_cast<double>(mask);
        if (c.links.one_rank_per_node()) {
          t += c.links.message(0, 1, bytes);
          continue;
        }
        LockstepStep st(c.links);
        for (int r = 0; r < p; ++r)
          if ((r ^ mask) < p) st.add(r, static_cast<int>(r ^ mask), bytes);
        t += st.time();
      }
      break;
    default:  // pairwise: p - 1 steps, one portion to one partner each (r xor k for powers of two)
      for (int k = 1; k < p; ++k) {
        if (c.links.one_rank_per_node() || !is_pof2(p)) {
          t += shift_step(c.links, k, largest);
          continue;
        }
        LockstepStep st(c.links);
        for (int r = 0; r < p; ++r) st.add(r, r ^ k, largest);
        t += st.time();
      }
      break;
  }
  return t;
}

std::vector<double> allgatherv(const Ctx& c, const std::vector<double>& ready) {
  // The steps' time reads the layout and the portions, not the arrivals, and on nodes pairwise's
  // p - 1 lockstep steps are O(p^2) (6.4 ms at 1024 ranks): kept per thread (plan_memo.hpp), so
  // auto's weighing of a new arrival pattern does not repeat them.
  thread_local PlanMemo<double> steps;
  GeneratorInput any_arrivals = c.in;
  any_arrivals.arrivals.clear();
  const PlanMemo<double>::Tag tag{static_cast<uint64_t>(c.a.algo),
                                  static_cast<uint64_t>(c.a.fanout)};
  const double t = *steps.get(
      any_arrivals, [&](const GeneratorInput&) { return allgatherv_steps_time(c); }, tag);
  return all_finish_at(c.p(), latest_of(ready) + t);
}

std::vector<double> linear_v(const Ctx& c, const std::vector<double>& ready, bool scatter,
                             int root) {
  const int p = c.p();
  std::vector<int> children;
  for (int r = 0; r < p; ++r) children.push_back(r);
  const RankTree t = estimate::flat_tree(p, root, children, serve_of(c.a));
  TreeTransfer x;
  x.eager_bytes = c.eager;
  x.edge_bytes = library_portions(c.in);
  return scatter ? estimate::tree_bcast_finish(c.in, t, x, ready)
                 : estimate::tree_reduce_finish(c.in, t, x, ready);
}

std::vector<double> gatherv_bcast(const Ctx& c, const std::vector<double>& ready) {
  // Open MPI's default all-gatherv and SMPI's GB: gather to rank 0, then the library's
  // broadcast of the whole buffer from 0.
  GeneratorInput g = c.in;
  g.root = 0;
  const std::vector<double> gathered = linear_v(c, ready, false, 0);
  LibraryCall bc = c.call;
  bc.collective = Collective::bcast;
  return library_algorithm_finish(bc, library_algorithm(bc, g), g, gathered);
}

}  // namespace library_estimates_detail

double library_eager_bytes(MpiLibrary l, const GeneratorInput& in) {
  using namespace library_estimates_detail;
  switch (l) {
    case MpiLibrary::generic: return 0;
    case MpiLibrary::open_mpi:
      // vader's eager limit when every rank is on one node, TCP's otherwise.
      return in.nodes != nullptr && in.nodes->p() == in.p && in.nodes->nodes() == 1 ? 4096 : 65536;
    default: return 65536;
  }
}

std::vector<double> library_algorithm_finish(const LibraryCall& call, const LibraryAlgorithm& a,
                                             const GeneratorInput& in,
                                             const std::vector<double>& ready_in) {
  using namespace library_estimates_detail;
  std::vector<double> ready = ready_in;
  ready.resize(static_cast<size_t>(std::max(0, in.p)), 0.0);
  if (in.p < 2) return ready;
  const Ctx c(call, a, in);
  switch (a.algo) {
    case LibraryAlgo::recursive_doubling: return recursive_doubling(c, ready);
    case LibraryAlgo::ring:
      return call.collective == Collective::allgatherv ? allgatherv(c, ready)
                                                       : ring_allreduce(c, ready);
    case LibraryAlgo::segmented_ring: return segmented_ring(c, ready);
    case LibraryAlgo::rabenseifner: return rabenseifner(c, ready, false);
    case LibraryAlgo::rabenseifner_ompi_fold: return rabenseifner(c, ready, true);
    case LibraryAlgo::reduce_bcast:
    case LibraryAlgo::linear_reduce_bcast: {
      GeneratorInput r0 = in;
      r0.root = 0;
      LibraryCall rc = call, bc = call;
      rc.collective = Collective::reduce;
      bc.collective = Collective::bcast;
      const bool linear = a.algo == LibraryAlgo::linear_reduce_bcast;
      const LibraryAlgorithm ra = linear ? LibraryAlgorithm{LibraryAlgo::linear, "linear"}
                                         : library_algorithm(rc, r0);
      const LibraryAlgorithm ba = linear
                                      ? LibraryAlgorithm{LibraryAlgo::linear, "linear", 0, 0, true}
                                      : library_algorithm(bc, r0);
      return library_algorithm_finish(bc, ba, r0, library_algorithm_finish(rc, ra, r0, ready));
    }
    case LibraryAlgo::two_level:
      return call.collective == Collective::reduce ? two_level_reduce(c, ready)
                                                   : two_level_allreduce(c, ready);
    case LibraryAlgo::reduce_scatter_gather: return reduce_scatter_gather(c, ready);
    case LibraryAlgo::scatter_doubling: return scatter_allgather(c, ready, false);
    case LibraryAlgo::scatter_ring: return scatter_allgather(c, ready, true);
    case LibraryAlgo::smp_binomial: return smp_binomial(c, ready);
    case LibraryAlgo::gatherv_bcast: return gatherv_bcast(c, ready);
    case LibraryAlgo::bruck:
    case LibraryAlgo::neighbor_exchange:
    case LibraryAlgo::allgather_doubling:
    case LibraryAlgo::pairwise: return allgatherv(c, ready);
    case LibraryAlgo::linear_v:
      return linear_v(c, ready, call.collective == Collective::scatterv, c.root());
    case LibraryAlgo::linear:
    case LibraryAlgo::chain:
    case LibraryAlgo::binary:
    case LibraryAlgo::binomial:
    case LibraryAlgo::in_order_binary:
    case LibraryAlgo::knomial:
    case LibraryAlgo::ompi_binomial:
    case LibraryAlgo::split_binary:
      return call.collective == Collective::reduce ? tree_reduce(c, ready) : tree_bcast(c, ready);
  }
  return ready;
}

}  // namespace papcoll
