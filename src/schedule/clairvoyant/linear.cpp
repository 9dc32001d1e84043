// Clairvoyant(linear): Listing 2 of the paper, i.e. the original pseudocode (Listing 1) with the
// fixes of Sect. 4 and nothing of Sect. 5 (no idle-round skipping, linear searches):
//  * line 19: the inner loop also ends when every segment has been tried (4.3);
//  * lines 25-27: the peer search only runs when the receiver has a candidate segment (4.3);
//  * lines 32-37: queues and states change only when a peer was found (4.3);
//  * line 33-34: every queue entry carries the round number (4.3);
//  * state P' (4.2): a segment received in a round is not sent again in that round;
//  * Q is a deterministic priority queue, ties broken by rank (4.4), on exact times (clock.hpp).
// Line 10 "insert r at first position in G" is read as the pseudo-root of Listing 8: the root is
// processed first as receiver, but the peer search walks G in availability order (see
// clairvoyant.hpp and docs/algorithms.md).
#include <cstdint>
#include <queue>
#include <stdexcept>
#include <vector>

#include "schedule/clairvoyant/clairvoyant.hpp"
#include "schedule/clairvoyant/clock.hpp"

namespace papcoll::clairvoyant {
namespace {

// One byte per (process, segment) state, as in the pseudocode. A and P behave alike (Sect. 5.3)
// but are kept apart here to stay literal.
enum : uint8_t { kA = 0, kP = 1, kE = 2, kPp = 3 };  // kPp: P' of Sect. 4.2

struct Entry {
  int64_t k;  // availability round index; the time is k*d + f[rank]
  int rank;
};

}  // namespace

Result run_linear(const Instance& in) {
  const Clock clk = make_clock(in);
  const int P = in.p, N = in.segments, root = in.root;
  const size_t n = static_cast<size_t>(N);

  std::vector<uint8_t> M(static_cast<size_t>(P) * n, kA);  // line 1, process-major
  std::vector<char> S(static_cast<size_t>(P), 0);          // line 2: S(z) = "has sent this round"
  std::vector<int> pprime(static_cast<size_t>(P), -1);     // the segment a process holds in P'

  auto later = [&clk](const Entry& a, const Entry& b) {
    return clk.before(b.k, b.rank, a.k, a.rank);
  };
  std::priority_queue<Entry, std::vector<Entry>, decltype(later)> Q(later);  // line 3
  for (int i = 0; i < P; ++i) Q.push({clk.k0[i], i});

  Result res;
  res.state_bits = 8.0 * static_cast<double>(M.size());
  res.transfers.reserve(static_cast<size_t>(P) * n + 16);  // about P*N transfers
  std::vector<Entry> G;
  std::vector<int> order;
  int64_t round = 0;
  while (Q.size() > 1) {  // line 4
    // Line 5: G = the processes within one round time of the earliest one, in queue order.
    G.clear();
    const Entry head = Q.top();
    Q.pop();
    G.push_back(head);
    while (!Q.empty() && clk.in_window(Q.top().k, Q.top().rank, head.k, head.rank)) {
      G.push_back(Q.top());
      Q.pop();
    }
    // Lines 6-18: reset S, pick the sink r* (the root when present, else the head) and process it
    // first.
    bool root_in = false;
    for (const Entry& g : G) {
      S[g.rank] = 0;
      root_in = root_in || g.rank == root;
    }
    const int sink = root_in ? root : head.rank;
    order.assign(1, sink);
    for (const Entry& g : G)
      if (g.rank != sink) order.push_back(g.rank);
    if (G.size() > 1) {
      ++res.busy_rounds;
      res.searches += static_cast<int64_t>(G.size());
    }

    for (const int i : order) {  // line 12
      uint8_t* Mi = &M[static_cast<size_t>(i) * n];
      int j = 0, z = -1;        // line 13
      while (z < 0 && j < N) {  // line 19
        if (i != sink) {
          while (j < N && Mi[j] >= kE) ++j;  // line 21: first j with M(i,j) in {A, P}
        } else {
          while (j < N && Mi[j] == kPp) ++j;  // line 23: in {A, P, E}, not P' (Sect. 5.4.1)
        }
        if (j < N) {  // lines 25-27: first z != i in G, free, holding j in A or P (not P')
          for (const Entry& g : G) {
            const int c = g.rank;
            if (c != i && !S[c] && M[static_cast<size_t>(c) * n + j] <= kP) {
              z = c;
              break;
            }
          }
          if (z < 0) ++j;  // lines 28-30
        }
      }
      if (z >= 0) {  // lines 32-37
        res.add(round, z, i, j, Mi[j] == kE);
        S[z] = 1;
        M[static_cast<size_t>(z) * n + j] = kE;
        Mi[j] = kPp;
        pprime[i] = j;
      }
    }

    // Lines 39-44: P' becomes P again; processes that still hold a segment go back into Q one
    // round later.
    for (const Entry& g : G) {
      const int c = g.rank;
      uint8_t* Mc = &M[static_cast<size_t>(c) * n];
      if (pprime[c] >= 0) {
        Mc[pprime[c]] = kP;
        pprime[c] = -1;
      }
      bool live = false;
      for (int j = 0; j < N && !live; ++j) live = Mc[j] != kE;
      if (live) Q.push({g.k + 1, c});
    }
    ++round;
  }
  if (!Q.empty() && Q.top().rank != root)
    throw std::logic_error("clairvoyant(linear): a process other than the root kept data");
  res.rounds = round;
  return res;
}

}  // namespace papcoll::clairvoyant
