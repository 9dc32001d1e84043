// Clairvoyant(pairing heaps): the algorithm of linear.cpp (Listing 2 with the fixes of Sect. 4)
// with the peer search of the original authors: one boost::heap::pairing_heap per segment holding
// the processes that may send that segment now (Sect. 4.1), with a handle per (process, segment).
//
// As in the paper's measured version (Sect. 5.7), changing S removes or inserts the process in the
// heaps rather than filtering on extraction: a process that sends is erased from every heap it is
// in (it may not send again this round), and put back into the heaps of all its A/P segments when
// the round ends; a receiver's P' segment is erased from that heap and put back too (Sect. 4.2).
//
// Heap order must be the order of G (Listing 2 line 26, "the first process z in G"). A process
// stays in G from the round it joins until it is done (every survivor of a round is within one
// round time of the next head), and all of G advance by d together, so the key
// (k0 - join round, f, rank) orders G members exactly and never changes while they are in a heap.
#include <boost/heap/pairing_heap.hpp>
#include <cstdint>
#include <queue>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "schedule/clairvoyant/clairvoyant.hpp"
#include "schedule/clairvoyant/clock.hpp"

namespace papcoll::clairvoyant {
namespace {

enum : uint8_t { kA = 0, kP = 1, kE = 2, kPp = 3 };

struct Entry {
  int64_t k;
  int rank;
};

struct Node {
  int64_t base;  // k - round while in G: constant
  double f;
  int proc;
};

// boost heaps are max-heaps: "less" must mean "later in G".
struct Later {
  bool operator()(const Node& a, const Node& b) const {
    if (a.base != b.base) return a.base > b.base;
    if (a.f != b.f) return a.f > b.f;
    return a.proc > b.proc;
  }
};

using Heap = boost::heap::pairing_heap<Node, boost::heap::compare<Later>>;
using Handle = Heap::handle_type;
using HeapNode = std::remove_pointer_t<decltype(Handle::node_)>;

}  // namespace

Result run_pairing(const Instance& in) {
  const Clock clk = make_clock(in);
  const int P = in.p, N = in.segments, root = in.root;
  const size_t n = static_cast<size_t>(N);

  std::vector<uint8_t> M(static_cast<size_t>(P) * n, kA);
  std::vector<char> S(static_cast<size_t>(P), 0);
  std::vector<int> pprime(static_cast<size_t>(P), -1);
  std::vector<char> joined(static_cast<size_t>(P), 0);
  std::vector<Node> node(static_cast<size_t>(P));
  std::vector<Heap> heaps(n);
  std::vector<Handle> handle(static_cast<size_t>(P) * n);  // node_ == nullptr: not in the heap

  auto insert = [&](int c, int x) {
    handle[static_cast<size_t>(c) * n + x] = heaps[x].push(node[c]);
  };
  auto erase = [&](int c, int x) {
    Handle& h = handle[static_cast<size_t>(c) * n + x];
    if (h.node_) {
      heaps[x].erase(h);
      h = Handle();
    }
  };
  auto insert_all = [&](int c) {  // every segment c holds in A or P
    const uint8_t* Mc = &M[static_cast<size_t>(c) * n];
    for (int x = 0; x < N; ++x)
      if (Mc[x] <= kP) insert(c, x);
  };

  auto later = [&clk](const Entry& a, const Entry& b) {
    return clk.before(b.k, b.rank, a.k, a.rank);
  };
  std::priority_queue<Entry, std::vector<Entry>, decltype(later)> Q(later);
  for (int i = 0; i < P; ++i) Q.push({clk.k0[i], i});

  Result res;
  // M, the handles and (at most) one heap node per (process, segment) pair.
  res.state_bits = 8.0 * static_cast<double>(M.size()) *
                   static_cast<double>(1 + sizeof(Handle) + sizeof(HeapNode));
  res.transfers.reserve(static_cast<size_t>(P) * n + 16);  // about P*N transfers
  std::vector<Entry> G;
  std::vector<int> order;
  int64_t round = 0;
  while (Q.size() > 1) {
    G.clear();
    const Entry head = Q.top();
    Q.pop();
    G.push_back(head);
    while (!Q.empty() && clk.in_window(Q.top().k, Q.top().rank, head.k, head.rank)) {
      G.push_back(Q.top());
      Q.pop();
    }
    bool root_in = false;
    for (const Entry& g : G) {
      root_in = root_in || g.rank == root;
      if (!joined[g.rank]) {  // enters G: available for all its segments from now on
        joined[g.rank] = 1;
        node[g.rank] = Node{g.k - round, clk.f[g.rank], g.rank};
        insert_all(g.rank);
      }
    }
    const int sink = root_in ? root : head.rank;
    order.assign(1, sink);
    for (const Entry& g : G)
      if (g.rank != sink) order.push_back(g.rank);
    if (G.size() > 1) {
      ++res.busy_rounds;
      res.searches += static_cast<int64_t>(G.size());
    }

    for (const int i : order) {
      uint8_t* Mi = &M[static_cast<size_t>(i) * n];
      const uint8_t limit = i == sink ? kE : kP;  // the sink also accepts segments in state E
      int z = -1, j = 0;
      for (; j < N; ++j) {
        if (Mi[j] > limit) continue;
        Heap& h = heaps[j];
        if (h.empty()) continue;
        z = h.top().proc;
        if (z == i) {  // the receiver itself is first: look at the next one
          if (h.size() == 1) {
            z = -1;
            continue;
          }
          h.pop();
          z = h.top().proc;
          handle[static_cast<size_t>(i) * n + j] = h.push(node[i]);
        }
        break;
      }
      if (z < 0) continue;
      res.add(round, z, i, j, Mi[j] == kE);
      // S(z) = T: z leaves every heap for the rest of the round.
      const uint8_t* Mz = &M[static_cast<size_t>(z) * n];
      for (int x = 0; x < N; ++x)
        if (Mz[x] <= kP) erase(z, x);
      S[z] = 1;
      M[static_cast<size_t>(z) * n + j] = kE;
      erase(i, j);  // P': not available for j in this round
      Mi[j] = kPp;
      pprime[i] = j;
    }

    for (const Entry& g : G) {
      const int c = g.rank;
      uint8_t* Mc = &M[static_cast<size_t>(c) * n];
      if (pprime[c] >= 0) {
        Mc[pprime[c]] = kP;
        if (!S[c]) insert(c, pprime[c]);
        pprime[c] = -1;
      }
      if (S[c]) {  // S(c) = _|_ again: back into the heaps of all its A/P segments
        S[c] = 0;
        insert_all(c);
      }
      bool live = false;
      for (int x = 0; x < N && !live; ++x) live = Mc[x] != kE;
      if (live) Q.push({g.k + 1, c});
    }
    ++round;
  }
  if (!Q.empty() && Q.top().rank != root)
    throw std::logic_error("clairvoyant(pairing): a process other than the root kept data");
  res.rounds = round;
  return res;
}

}  // namespace papcoll::clairvoyant
