#include "schedule/scatter_gather/sg_tree.hpp"

#include <algorithm>

#include "schedule/portions.hpp"

namespace papcoll {

SgTree empty_sg_tree(int p, int root) {
  SgTree t;
  t.root = root;
  t.parent.assign(static_cast<size_t>(p), -1);
  t.children.assign(static_cast<size_t>(p), {});
  return t;
}

void add_child(SgTree& t, int parent, int child) {
  t.parent[static_cast<size_t>(child)] = parent;
  t.children[static_cast<size_t>(parent)].push_back(child);
}

std::vector<int> top_down_order(const SgTree& t) {
  std::vector<int> order{t.root};
  for (size_t i = 0; i < order.size(); ++i)
    for (int c : t.children[static_cast<size_t>(order[i])]) order.push_back(c);
  return order;
}

std::vector<std::vector<int>> subtree_ranks(const SgTree& t) {
  std::vector<std::vector<int>> sub(t.parent.size());
  // Ranks in ascending order, each appended to itself and its ancestors: the lists come sorted.
  for (int v = 0; v < static_cast<int>(t.parent.size()); ++v)
    for (int a = v; a >= 0; a = t.parent[static_cast<size_t>(a)]) sub[a].push_back(v);
  return sub;
}

int tree_depth(const SgTree& t) {
  std::vector<int> depth(t.parent.size(), 0);
  int deepest = 0;
  for (int v : top_down_order(t))
    for (int c : t.children[static_cast<size_t>(v)]) {
      depth[c] = depth[v] + 1;
      deepest = std::max(deepest, depth[c]);
    }
  return deepest;
}

void emit_tree_schedule(const SgTree& t, const SgProblem& problem, ScheduleSink& out) {
  const int p = problem.p();
  const std::vector<std::vector<int>> sub = subtree_ranks(t);
  struct Edge {
    int round, parent, child;
  };
  std::vector<Edge> edges;
  std::vector<int> recv_round(static_cast<size_t>(p), -1);
  int last = -1;
  for (int v : top_down_order(t)) {
    int slot = recv_round[v] + 1;  // one send per slot, after the node has its portions
    for (int child : t.children[static_cast<size_t>(v)]) {
      recv_round[child] = slot;
      edges.push_back({slot, v, child});
      last = std::max(last, slot++);
    }
  }
  for (const Edge& e : edges) {
    if (!out.wants(e.parent) && !out.wants(e.child)) continue;
    const BlockSet portions(sub[e.child]);
    if (problem.gather())
      out.transfer(last - e.round, e.child, e.parent, portions, Combine::copy);
    else
      out.transfer(e.round, e.parent, e.child, portions, Combine::copy);
  }
}

Schedule tree_schedule(const SgTree& t, const SgProblem& problem, const std::string& algorithm) {
  Schedule s;
  s.collective = problem.gather() ? Collective::gatherv : Collective::scatterv;
  s.algorithm = algorithm;
  s.p = problem.p();
  s.blocks = problem.p();
  s.root = t.root;
  ScheduleSink sink(s.p, 0, s.p);
  emit_tree_schedule(t, problem, sink);
  s.ranks = std::move(sink).take();
  return s;
}

double predicted_tree_time(const SgTree& t, const SgProblem& problem) {
  const std::vector<std::vector<int>> sub = subtree_ranks(t);
  std::vector<double> m(t.parent.size());
  for (size_t v = 0; v < m.size(); ++v) m[v] = message_bytes(problem.bytes(), sub[v]);
  std::vector<double> ready(t.parent.size(), 0.0);
  const std::vector<int> order = top_down_order(t);
  double finish = 0;
  if (!problem.gather()) {
    // A node sends to its children in order once it holds its subtree's portions; each send
    // starts when the previous one has ended (the children are idle until then).
    for (int v : order) {
      double port = ready[v];
      for (int c : t.children[static_cast<size_t>(v)]) {
        ready[c] = problem.edge_end(port, v, c, m[c]);
        port = ready[c];
        finish = std::max(finish, port);
      }
    }
    return finish;
  }
  // Gather: children before parents; a node receives from its children in reverse send order,
  // each receive starting when both the previous receive and the child's own gather are done,
  // and is ready to send when the last receive ends.
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int v = *it;
    double port = 0;
    const std::vector<int>& kids = t.children[static_cast<size_t>(v)];
    for (auto c = kids.rbegin(); c != kids.rend(); ++c)
      port = problem.edge_end(std::max(port, ready[*c]), v, *c, m[*c]);
    ready[v] = port;
    finish = std::max(finish, port);
  }
  return finish;
}

}  // namespace papcoll
