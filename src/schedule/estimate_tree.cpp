#include "schedule/estimate_tree.hpp"

#include <algorithm>
#include <cstdint>
#include <unordered_map>

#include "schedule/estimate_topology.hpp"

namespace papcoll::estimate {
namespace tree_detail {  // file-local (unity builds: a name of its own)

// Builds the tree rooted at rank `root` from `children(v, emit)`, which emits (child, batch) for
// v in serving order, where v and the children are numbered as `real` maps them to ranks.
// Two passes (count, fill): no per-rank allocation.
template <typename Children, typename Real>
RankTree build_tree(int p, int root, Children children, Real real) {
  RankTree t;
  t.root = root;
  t.parent.assign(static_cast<size_t>(p), -1);
  t.first.assign(static_cast<size_t>(p) + 1, 0);
  for (int v = 0; v < p; ++v)
    children(v, [&](int, int) { ++t.first[static_cast<size_t>(real(v)) + 1]; });
  for (int r = 0; r < p; ++r)
    t.first[static_cast<size_t>(r) + 1] += t.first[static_cast<size_t>(r)];
  t.child.assign(static_cast<size_t>(t.first[static_cast<size_t>(p)]), 0);
  t.batch.assign(t.child.size(), 0);
  std::vector<int> fill(t.first.begin(), t.first.end() - 1);
  for (int v = 0; v < p; ++v)
    children(v, [&](int c, int b) {
      const int u = real(v), rc = real(c);
      const int at = fill[static_cast<size_t>(u)]++;
      t.child[static_cast<size_t>(at)] = rc;
      t.batch[static_cast<size_t>(at)] = b;
      t.parent[static_cast<size_t>(rc)] = u;
    });
  t.order.reserve(static_cast<size_t>(p));
  t.order.push_back(t.root);
  for (size_t i = 0; i < t.order.size(); ++i) {
    const int u = t.order[i];
    for (int e = t.first[static_cast<size_t>(u)]; e < t.first[static_cast<size_t>(u) + 1]; ++e)
      t.order.push_back(t.child[static_cast<size_t>(e)]);
  }
  return t;
}

auto relative_to(int p, int root) {
  return [p, root](int v) { return static_cast<int>((static_cast<int64_t>(v) + root) % p); };
}

double edge_bytes(const TreeTransfer& x, int r) {
  return x.edge_bytes.empty() ? x.segment_bytes : x.edge_bytes[static_cast<size_t>(r)];
}

// What one more segment adds on an edge whose transfer takes `d`, of which `latency` is the
// start-up, with x.in_flight segments in flight (TreeTransfer::in_flight).
double next_segment(const TreeTransfer& x, double d, double latency) {
  if (x.in_flight <= 1) return d;
  return std::max(d - latency, d / x.in_flight);
}

// The batch of the i-th child served.
int batch_of(Serve serve, int i) { return serve == Serve::all_at_once ? 0 : i; }

}  // namespace tree_detail

RankTree binomial_tree(int p, int root, bool largest_first, Serve serve) {
  using namespace tree_detail;
  int depth = 0;
  while ((int64_t{1} << depth) < p) ++depth;
  return build_tree(
      p, root,
      [&](int v, auto emit) {
        const int64_t low = v == 0 ? (int64_t{1} << depth) : (v & -v);
        int i = 0;
        if (largest_first) {
          for (int k = depth - 1; k >= 0; --k)
            if ((int64_t{1} << k) < low && v + (int64_t{1} << k) < p)
              emit(static_cast<int>(v + (int64_t{1} << k)), batch_of(serve, i++));
        } else {
          for (int k = 0; k < depth; ++k)
            if ((int64_t{1} << k) < low && v + (int64_t{1} << k) < p)
              emit(static_cast<int>(v + (int64_t{1} << k)), batch_of(serve, i++));
        }
      },
      relative_to(p, root));
}

RankTree ompi_bmtree(int p, int root, Serve serve) {
  using namespace tree_detail;
  return build_tree(
      p, root,
      [&](int v, auto emit) {
        int64_t mask = 1;
        while (mask <= v) mask <<= 1;
        for (int i = 0; v + mask < p; mask <<= 1)
          emit(static_cast<int>(v + mask), batch_of(serve, i++));
      },
      relative_to(p, root));
}

RankTree knomial_tree(int p, int root, int radix, bool per_level, Serve serve) {
  using namespace tree_detail;
  const int k = std::max(2, radix);
  return build_tree(
      p, root,
      [&](int v, auto emit) {
        // The levels below v's: k^l for every k^l that divides v with k^(l+1) dividing it too
        // (the root: every k^l < p).
        int64_t top = 1;
        while (top < p && (v == 0 || v % (top * k) == 0)) top *= k;
        int i = 0, level = 0;
        for (int64_t mask = top / k; mask >= 1; mask /= k, ++level)
          for (int j = 1; j < k; ++j)
            if (v + j * mask < p)
              emit(static_cast<int>(v + j * mask), per_level ? level : batch_of(serve, i++));
      },
      relative_to(p, root));
}

RankTree kary_tree(int p, int root, int fanout, Serve serve) {
  using namespace tree_detail;
  const int f = std::max(1, fanout);
  return build_tree(
      p, root,
      [&](int v, auto emit) {
        // v's level l: the levels hold 1, f, f^2, ... relative ranks in order.
        int64_t level_size = 1, below = 0;
        while (below + level_size <= v) {
          below += level_size;
          level_size *= f;
        }
        for (int i = 0; i < f; ++i) {
          const int64_t c = v + level_size * (i + 1);
          if (c >= p) break;
          emit(static_cast<int>(c), batch_of(serve, i));
        }
      },
      relative_to(p, root));
}

RankTree chain_tree(int p, int root, int chains, Serve serve) {
  using namespace tree_detail;
  const int f = std::max(1, std::min(chains, p - 1));
  const int rest = p - 1;
  const int longer = f > 0 ? rest % f : 0, base = f > 0 ? rest / f : 0;
  return build_tree(
      p, root,
      [&](int v, auto emit) {
        if (p < 2) return;
        if (v == 0) {
          int head = 1;
          for (int c = 0; c < f; ++c) {
            emit(head, batch_of(serve, c));
            head += base + (c < longer ? 1 : 0);
          }
          return;
        }
        // v is in the chain that starts at the last head <= v.
        int head = 1;
        for (int c = 0; c < f; ++c) {
          const int len = base + (c < longer ? 1 : 0);
          if (v < head + len) {
            if (v + 1 < head + len) emit(v + 1, 0);
            return;
          }
          head += len;
        }
      },
      relative_to(p, root));
}

RankTree in_order_binary_tree(int p, Serve serve) {
  using namespace tree_detail;
  // ompi_coll_base_topo_build_in_order_bintree: a subtree of `size` ranks starting at `delta`
  // has its root at delta + size - 1, its left child at delta + size - 2 (the root of the upper
  // size - size/2 - 1 ranks) and its right child at delta + size/2 - 1 (the lower size/2 ranks).
  return build_tree(
      p, p - 1,
      [&](int v, auto emit) {
        int size = p, delta = 0;
        while (size > 0) {
          const int me = delta + size - 1;
          const int right = size >> 1;
          if (v == me) {
            int i = 0;
            if (size - 1 > 0) {
              const int lchild = size - 2;
              emit(delta + lchild, batch_of(serve, i++));
              if (lchild > 0 && right > 0) emit(delta + right - 1, batch_of(serve, i++));
            }
            return;
          }
          if (v - delta >= right) {  // the upper part: the left subtree
            size = size - right - 1;
            delta += right;
          } else {
            size = right;
          }
        }
      },
      [](int v) { return v; });
}

RankTree flat_tree(int p, int root, const std::vector<int>& children, Serve serve) {
  using namespace tree_detail;
  return build_tree(
      p, root,
      [&](int v, auto emit) {
        if (v != root) return;
        int i = 0;
        for (int c : children)
          if (c != root && c >= 0 && c < p) emit(c, batch_of(serve, i++));
      },
      [](int v) { return v; });
}

namespace tree_detail {  // file-local (unity builds: a name of its own)

// How many transfers share each edge's links (estimate_topology.hpp): the transfers of the same
// round leaving the sender's node or entering the receiver's, counted over every edge between
// nodes; share[r] for the edge between r and its parent. round[r] is that edge's round.
std::vector<double> edge_shares(const NodeLinks& links, const RankTree& t,
                                const std::vector<int>& round) {
  const int p = t.p();
  std::vector<double> share(static_cast<size_t>(p), 1.0);
  if (links.one_rank_per_node()) {
    // Every rank its own node: a transfer shares only with its sender's others of the same round
    // (a batch), whose children come one after the other: no table needed.
    for (int u = 0; u < p; ++u) {
      const int e0 = t.first[static_cast<size_t>(u)], e1 = t.first[static_cast<size_t>(u) + 1];
      for (int e = e0; e < e1;) {
        const int r = round[static_cast<size_t>(t.child[static_cast<size_t>(e)])];
        int f = e;
        while (f < e1 && round[static_cast<size_t>(t.child[static_cast<size_t>(f)])] == r) ++f;
        for (int g = e; g < f; ++g)
          share[static_cast<size_t>(t.child[static_cast<size_t>(g)])] = f - e;
        e = f;
      }
    }
    return share;
  }
  std::unordered_map<int64_t, int> out, in;
  auto key = [&](int node, int r) { return static_cast<int64_t>(r) * (links.nodes() + 1) + node; };
  for (int c = 0; c < p; ++c) {
    const int u = t.parent[static_cast<size_t>(c)];
    if (u < 0 || links.same_node(u, c)) continue;
    ++out[key(links.node(u), round[static_cast<size_t>(c)])];
    ++in[key(links.node(c), round[static_cast<size_t>(c)])];
  }
  for (int c = 0; c < p; ++c) {
    const int u = t.parent[static_cast<size_t>(c)];
    if (u < 0 || links.same_node(u, c)) continue;
    share[static_cast<size_t>(c)] = std::max(out[key(links.node(u), round[static_cast<size_t>(c)])],
                                             in[key(links.node(c), round[static_cast<size_t>(c)])]);
  }
  return share;
}

}  // namespace tree_detail

std::vector<double> tree_bcast_finish(const GeneratorInput& in, const RankTree& t,
                                      const TreeTransfer& x, const std::vector<double>& ready) {
  using namespace tree_detail;
  const int p = t.p();
  const NodeLinks links(in);
  // A sender does not wait for an eager send, so consecutive eager sends of one rank are in
  // flight together whatever its batches say (SMPI's blocking sends below its detached
  // threshold, MVAPICH's per-level waits): one batch.
  std::vector<int> batch(t.batch.size(), 0);
  for (int u = 0; u < p; ++u) {
    int b = 0;
    bool previous_eager = false;
    for (int e = t.first[static_cast<size_t>(u)]; e < t.first[static_cast<size_t>(u) + 1]; ++e) {
      const bool eager = edge_bytes(x, t.child[static_cast<size_t>(e)]) <= x.eager_bytes;
      if (e > t.first[static_cast<size_t>(u)] &&
          t.batch[static_cast<size_t>(e)] != t.batch[static_cast<size_t>(e) - 1] &&
          !(eager && previous_eager))
        ++b;
      batch[static_cast<size_t>(e)] = b;
      previous_eager = eager;
    }
  }
  // Rounds of the balanced run: the root's batches go out in rounds 0, 1, ...; a rank that
  // receives in round k serves its batches from round k + 1.
  std::vector<int> round(static_cast<size_t>(p), 0), has(static_cast<size_t>(p), 0);
  for (int u : t.order) {
    int b = -1, r = has[static_cast<size_t>(u)] - 1;
    for (int e = t.first[static_cast<size_t>(u)]; e < t.first[static_cast<size_t>(u) + 1]; ++e) {
      if (batch[static_cast<size_t>(e)] != b) {
        b = batch[static_cast<size_t>(e)];
        ++r;
      }
      const int c = t.child[static_cast<size_t>(e)];
      round[static_cast<size_t>(c)] = r;
      has[static_cast<size_t>(c)] = r + 1;
    }
  }
  const std::vector<double> share = edge_shares(links, t, round);
  const int segments = std::max(1, x.segments);
  std::vector<double> first(static_cast<size_t>(p)), period(static_cast<size_t>(p), 0.0),
      finish(static_cast<size_t>(p));
  first[static_cast<size_t>(t.root)] = ready[static_cast<size_t>(t.root)];
  for (int u : t.order) {
    double port = first[static_cast<size_t>(u)], per_segment = 0;
    const int e0 = t.first[static_cast<size_t>(u)], e1 = t.first[static_cast<size_t>(u) + 1];
    for (int e = e0; e < e1;) {
      // One batch: its transfers start together and the rank waits for all of them.
      const double start = port;
      double end = port, longest = 0;
      const int b = batch[static_cast<size_t>(e)];
      for (; e < e1 && batch[static_cast<size_t>(e)] == b; ++e) {
        const int c = t.child[static_cast<size_t>(e)];
        const double m = edge_bytes(x, c);
        const double d = links.message(u, c, m, share[static_cast<size_t>(c)]);
        const double rc = ready[static_cast<size_t>(c)];
        const bool eager = m <= x.eager_bytes;
        first[static_cast<size_t>(c)] = std::max(start, rc) + d;
        end = std::max(end, eager ? start + d : first[static_cast<size_t>(c)]);
        longest = std::max(longest, next_segment(x, d,
                                                 links.same_node(u, c) ? links.intra_alpha()
                                                                       : links.alpha()));
      }
      port = end;
      per_segment += longest;
    }
    const double q = std::max(period[static_cast<size_t>(u)], per_segment);
    for (int e = e0; e < e1; ++e) period[static_cast<size_t>(t.child[static_cast<size_t>(e)])] = q;
    finish[static_cast<size_t>(u)] = (e1 > e0 ? port : first[static_cast<size_t>(u)]) +
                                     (segments - 1) * q;
  }
  return finish;
}

std::vector<double> tree_reduce_finish(const GeneratorInput& in, const RankTree& t,
                                       const TreeTransfer& x, const std::vector<double>& ready) {
  using namespace tree_detail;
  const int p = t.p();
  const NodeLinks links(in);
  const double gamma = x.reduce ? in.cost.gamma : 0;
  // Rounds of the balanced run, bottom-up: a leaf sends in round 0 at the earliest; a rank takes
  // its children one per round in order, each once it has sent, and is done the round after.
  std::vector<int> round(static_cast<size_t>(p), 0), done(static_cast<size_t>(p), 0);
  for (auto it = t.order.rbegin(); it != t.order.rend(); ++it) {
    const int u = *it;
    int r = 0;
    for (int e = t.first[static_cast<size_t>(u)]; e < t.first[static_cast<size_t>(u) + 1]; ++e) {
      const int c = t.child[static_cast<size_t>(e)];
      r = std::max(r, done[static_cast<size_t>(c)]);
      round[static_cast<size_t>(c)] = r++;
    }
    done[static_cast<size_t>(u)] = r;
  }
  const std::vector<double> share = edge_shares(links, t, round);
  const int segments = std::max(1, x.segments);
  // first[u]: u holds its subtree's first segment; in[u]: the period of its later segments (the
  // receives and reductions per segment, or a child's period); period[u]: also its own sends.
  std::vector<double> first(static_cast<size_t>(p)), in_period(static_cast<size_t>(p), 0.0),
      period(static_cast<size_t>(p), 0.0), sent(static_cast<size_t>(p), 0.0),
      link(static_cast<size_t>(p), 0.0), finish(static_cast<size_t>(p));
  for (auto it = t.order.rbegin(); it != t.order.rend(); ++it) {
    const int u = *it;
    double tu = ready[static_cast<size_t>(u)], per_segment = 0, slowest_child = 0;
    for (int e = t.first[static_cast<size_t>(u)]; e < t.first[static_cast<size_t>(u) + 1]; ++e) {
      const int c = t.child[static_cast<size_t>(e)];
      const double m = edge_bytes(x, c);
      const double d = links.message(c, u, m, share[static_cast<size_t>(c)]);
      const double start = std::max(tu, first[static_cast<size_t>(c)]);
      sent[static_cast<size_t>(c)] = start;
      link[static_cast<size_t>(c)] = d;
      tu = start + d + gamma * m;
      per_segment +=
          next_segment(x, d, links.same_node(c, u) ? links.intra_alpha() : links.alpha()) +
          gamma * m;
      slowest_child = std::max(slowest_child, period[static_cast<size_t>(c)]);
    }
    first[static_cast<size_t>(u)] = tu;
    in_period[static_cast<size_t>(u)] = std::max(per_segment, slowest_child);
    double own_send = 0;
    if (const int q = t.parent[static_cast<size_t>(u)]; q >= 0)
      own_send = next_segment(x,
                              links.message(u, q, edge_bytes(x, u), share[static_cast<size_t>(u)]),
                              links.same_node(u, q) ? links.intra_alpha() : links.alpha());
    period[static_cast<size_t>(u)] = std::max(in_period[static_cast<size_t>(u)], own_send);
  }
  for (int u : t.order) {
    const int q = t.parent[static_cast<size_t>(u)];
    if (q < 0) {
      finish[static_cast<size_t>(u)] = first[static_cast<size_t>(u)] +
                                       (segments - 1) * in_period[static_cast<size_t>(u)];
      continue;
    }
    if (edge_bytes(x, u) <= x.eager_bytes)  // it hands its last segment over without waiting
      finish[static_cast<size_t>(u)] = first[static_cast<size_t>(u)] +
                                       (segments - 1) * in_period[static_cast<size_t>(u)];
    else  // its sends go at its parent's pace
      finish[static_cast<size_t>(u)] = sent[static_cast<size_t>(u)] + link[static_cast<size_t>(u)] +
                                       (segments - 1) * period[static_cast<size_t>(q)];
  }
  return finish;
}

}  // namespace papcoll::estimate
