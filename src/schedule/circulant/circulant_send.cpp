// Algorithms 7 (Sendschedule), 8 (lower part) and 9 (upper part) of Träff, arXiv 2312.11236.
//
// The root sends block k in round k. Any other processor r walks the rounds downwards from q-1,
// keeping a virtual rank r' (initially r) and an upper bound e (initially p) with r' < e: the
// processors [0, e) that, seen from r, are organised like r's own sub-problem. Round k splits the
// range into a lower part [0, skip[k]) and an upper part [skip[k], e):
//  - r' in the lower part: r keeps sending c, the block it has been carrying down (initially its
//    baseblock b). The to-processor r' + skip[k] is still inside the range when r' + skip[k] < e,
//    and then has not received c yet (Algorithm 8, first case).
//  - r' in the upper part: r received block k of the previous phase (k - q) over skip[k] as the
//    last step of its canonical path; it becomes c, and r', e move down by skip[k] (Algorithm 9).
// For p a power of two this is the hypercube schedule of Table 1 and never needs more. For other
// p the to-processor can lie outside the range; then the block it misses is not known locally and
// r computes the to-processor's receive schedule up to round k (a "violation"). The formulas of
// the paper's case analysis in Algorithms 8 and 9 (its sub-cases for Observations 2 and 3) did not
// survive in our copy of the text. The tests below are the ones its prose states, plus three
// found by comparing c with the reference for every processor of every p <= 8192 (marked
// "empirical"); `papcoll-sched verify-circulant` confirms the result equals the reference for
// every processor of every p up to 2^17 (docs/circulant.md). At most 4 violations occur per
// processor there, Proposition 3's bound; the mean is about 0.6.
#include "schedule/circulant/circulant_send.hpp"

#include "schedule/circulant/circulant_recv.hpp"

namespace papcoll::circulant {
namespace {

// The block the to-processor t receives in round k: a receive schedule computed up to round k
// only (the depth-first search fills the rounds in order).
int violation(const Skips& s, int r, int k) {
  int rb[kMaxQ + 1];
  int t = r + s.skip[k];
  if (t >= s.p) t -= s.p;
  recv_schedule(s, t, rb, k + 1);
  return rb[k];
}

}  // namespace

int send_schedule(const Skips& s, int r, int* sendblock) {
  const int q = s.q;
  const int* skip = s.skip;
  if (r == 0) {
    for (int k = 0; k < q; ++k) sendblock[k] = k;
    return 0;
  }
  if (q == 0) return 0;
  const int b = baseblock(s, r);
  int rp = r, e = s.p, c = b, violations = 0;
  for (int k = q - 1; k > 0; --k) {
    bool known;
    if (rp < skip[k]) {
      // Lower part (Algorithm 8): c is missing at the to-processor if it lies inside the range,
      // or if the range is so small (e < skip[k-1]) that nobody beyond it got c; empirical: in
      // round 1 a processor with a baseblock other than 0 may always send it.
      known = rp + skip[k] < e || e < skip[k - 1] || (k == 1 && b > 0);
      if (e > skip[k]) e = skip[k];
    } else {
      // Upper part (Algorithm 9): only r' = skip[k] (which then becomes 0) can be a violation;
      // empirical: not in round 1, and not while the remaining range is tiny (< skip[k-1]) or
      // large (>= skip[k-1] + skip[k-2]).
      c = k - q;
      e -= skip[k];
      known = rp > skip[k] || k == 1 || e < skip[k - 1] || e >= skip[k - 1] + skip[k - 2];
      rp -= skip[k];
    }
    if (known) {
      sendblock[k] = c;
    } else {
      sendblock[k] = violation(s, r, k);
      ++violations;
    }
  }
  // Round 0 opens the phase: nothing of it has arrived yet, so by condition 4 the only block to
  // send is the baseblock of the previous phase.
  sendblock[0] = b - q;
  return violations;
}

void send_schedule_reference(const Skips& s, int r, int* sendblock) {
  if (r == 0) {
    for (int k = 0; k < s.q; ++k) sendblock[k] = k;
    return;
  }
  // The straightforward way: the whole receive schedule of each of the q to-processors.
  int rb[kMaxQ + 1];
  for (int k = 0; k < s.q; ++k) {
    int t = r + s.skip[k];
    if (t >= s.p) t -= s.p;
    recv_schedule(s, t, rb);
    sendblock[k] = rb[k];
  }
}

}  // namespace papcoll::circulant
