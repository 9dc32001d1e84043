// Algorithms 5 (DFS-blocks) and 6 (recvschedule) of Träff, arXiv 2312.11236.
//
// Processor r receives in round k from f = r - skip[k]. The search looks, for k = 0, 1, ..., for
// the canonical skip sequence (a set of distinct skip indices summing to a processor r'_k) with
// r'_k <= R - skip[k] as close to it as possible, where R = p + r: working with the virtual
// processor p + r keeps every difference positive, and the root appears both as 0 and as p (skip
// index q). The smallest index of the sequence for round k is the block that travels along it and
// reaches r in round k; it is then removed from the candidate list, so the q rounds get q different
// blocks (condition 3). The baseblock of r is removed before the search starts, because the path
// to r itself is not a candidate; the round whose sequence is {q} (the root at p) is the round in
// which r receives its baseblock from this phase's root, every other index e found means block
// e - q of the previous phase.
#include "schedule/circulant/circulant_recv.hpp"

namespace papcoll::circulant {

// DFS-blocks(r', s, e, k) (Algorithm 5) with its recursion unrolled onto an explicit stack (the
// recursion is at most q + 1 deep; the loop form avoids call overhead, which matters at a few
// hundred nanoseconds per schedule). A frame holds r' (the sum of the path so far), s (the sum of
// the most recently accepted path: a new path must end strictly below it, since two index sets
// may sum to the same processor, Observations 2 and 3, and only the first, canonical one counts)
// and e (the candidate index being tried). k is the next round to fill. The remaining indices are
// a doubly linked list in decreasing order with sentinel q + 1, so removal is O(1). Returns the
// number of DFS-blocks calls (Proposition 1: O(q)).
int recv_schedule(const Skips& sk, int r, int* recvblock, int rounds) {
  const int q = sk.q;
  if (rounds > q) rounds = q;
  if (rounds <= 0) return 0;
  const int* skip = sk.skip;
  const int b = baseblock(sk, r);
  // lim[k] = R - skip[k] with R = p + r: the from-processor of round k; paths must not pass it.
  // skip[q+1] is a sentinel, so lim[q+1] lies below every path.
  const int R = sk.p + r;
  int lim[kMaxQ + 2];
  for (int k = 0; k <= q + 1; ++k) lim[k] = R - skip[k];
  // Indices q, q-1, ..., 0, then the baseblock linked out (Algorithm 6): the path to r itself is
  // not a candidate.
  const int end = q + 1;
  int next[kMaxQ + 2], prev[kMaxQ + 2];
  for (int i = 0; i <= q; ++i) {
    next[i] = i - 1;
    prev[i] = i + 1;
  }
  next[0] = end;
  prev[q] = end;
  next[end] = q;
  prev[end] = 0;
  auto unlink = [&](int x) {
    next[prev[x]] = next[x];
    prev[next[x]] = prev[x];
  };
  unlink(b);

  // Raw skip indices until the translation at the end; -1 marks a round the search did not fill
  // (Proposition 1 says it fills all), which the translation turns into the out-of-range value
  // -1 - q that the checker reports.
  int* out = recvblock;
  for (int i = 0; i < rounds; ++i) out[i] = -1;
  int stack_rp[kMaxQ + 2], stack_s[kMaxQ + 2], stack_e[kMaxQ + 2];
  int depth = 0, calls = 1, k = 0;
  int rp = 0, s = 2 * sk.p + 1, e = next[end];
  for (;;) {
    // The while loop of one DFS-blocks call.
    while (e != end) {
      const int to = rp + skip[e];
      // Admissible for round k: the path may not pass the from-processor, and it must end below
      // the last accepted path.
      if (to <= lim[k] && to < s) {
        if (to <= lim[k + 1]) {
          // Not yet in round k's window (lim[k+1], lim[k]]: extend the path with smaller skips
          // first (the recursive call; Lemma 2: e stays admissible for the k it returns).
          stack_rp[depth] = rp;
          stack_s[depth] = s;
          stack_e[depth] = e;
          ++depth;
          ++calls;
          rp = to;
          e = next[e];
          continue;
        }
        // The path without e already lies in round k's window: the caller accepts its own index.
        if (rp > lim[k + 1]) goto unwind;
        s = to;
        out[k++] = e;
        unlink(e);
        if (k == rounds) goto done;
      }
      e = next[e];
    }
  unwind:
    // Return from the current call; the caller accepts its index e for round k unless its own
    // path is already inside round k's window, in which case it returns as well.
    for (;;) {
      if (depth == 0) goto done;
      --depth;
      rp = stack_rp[depth];
      s = stack_s[depth];
      e = stack_e[depth];
      if (rp > lim[k + 1]) continue;
      s = rp + skip[e];
      out[k++] = e;
      unlink(e);
      if (k == rounds) goto done;
      e = next[e];
      break;
    }
  }
done:
  // The round whose path is {q} (the root, seen at p) brings this phase's baseblock; every other
  // index e is block e of the previous phase, e - q relative to this one.
  for (int i = 0; i < rounds; ++i) out[i] = out[i] == q ? b : out[i] - q;
  return calls;
}

}  // namespace papcoll::circulant
