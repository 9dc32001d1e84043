// The agreement rules of the progress monitor (no MPI, header-only so the unit tests need no
// library). Every rank must run a collective with bit-for-bit the same arrival vector, or the
// generated schedules differ and the program deadlocks. The monitor gets there by construction:
//
//   1. The raw data of call n is the result of one exchange in which every rank contributes exactly
//      once (an estimate at edge(), or its actual arrival at the collective's entry). After the
//      exchange every rank holds the same p contributions.
//   2. One deterministic function (below) turns those contributions into the vector the call
//      uses: no clock, no rank, no randomness, fixed-order arithmetic. Garbage in (NaN,
//      infinities, negative or huge estimates) gives a finite, sane vector out, the same on every
//      rank.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "prediction/predictor.hpp"

namespace papcoll::prediction {

// How a rank contributed to an exchange.
enum class ContributionKind : int {
  edge = 1,     // its monitor thread, after papcoll_monitor_edge(): value = predicted arrival
  entry = 2,    // the collective's entry without an edge() in this iteration: value = arrival
  closing = 3,  // papcoll_monitor_free / MPI_Finalize without an edge(): value = NaN
};

// The wire format of one contribution: four doubles (sent as MPI_DOUBLE x 4). Times are on the
// monitor's common clock (seconds since the reference taken at creation, rank 0's clock).
struct Contribution {
  double value = std::numeric_limits<double>::quiet_NaN();  // predicted/actual arrival
  double ctime = std::numeric_limits<double>::quiet_NaN();  // when it was contributed
  double kind = 0;                                          // ContributionKind as a double
  double seq = -1;                                          // the monitor's call number
};
static_assert(sizeof(Contribution) == 4 * sizeof(double), "sent as 4 MPI_DOUBLE");

// The paper's estimate at edge(f): the computation so far took `elapsed` for a fraction f, so the
// rest takes elapsed / f * (1 - f). NaN when the inputs make no sense (the sanitiser then treats
// the rank as unknown).
inline double estimate_remaining(double elapsed, double fraction) {
  if (!std::isfinite(elapsed) || elapsed < 0 || !(fraction > 0 && fraction <= 1))
    return std::numeric_limits<double>::quiet_NaN();
  return elapsed / fraction * (1.0 - fraction);
}

struct SanitizeParams {
  // An estimate farther than this (seconds) from the latest contribution is not believed. Also
  // bounds every relative time that comes out.
  double horizon = 3600.0;
};

struct AgreedPattern {
  bool usable = false;           // false: too little information, use the fallback
  std::vector<double> relative;  // p finite values >= 0, the minimum 0 (when usable)
  int unknown = 0;               // entries that were not believed and were replaced
  bool all_edge = false;         // every rank contributed at edge(): warm up the predicted ring
  bool consistent = true;        // every contribution carried the same call number
};

namespace detail {

// The lower median of the finite values (deterministic); NaN when there are none.
inline double lower_median(const std::vector<double>& v) {
  std::vector<double> f;
  for (double x : v)
    if (std::isfinite(x)) f.push_back(x);
  if (f.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(f.begin(), f.end());
  return f[(f.size() - 1) / 2];
}

// Fills the entries that `valid` rejects with the latest believed value, clamps everything to at
// least `floor`, shifts to the earliest. At least one entry must be valid.
inline std::vector<double> finish(const std::vector<double>& v, const std::vector<bool>& valid,
                                  double floor, double horizon) {
  double fill = -std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < v.size(); ++i)
    if (valid[i]) fill = std::max(fill, v[i]);
  std::vector<double> a(v.size());
  for (size_t i = 0; i < v.size(); ++i) a[i] = std::max(valid[i] ? v[i] : fill, floor);
  a = relative_to_earliest(std::move(a));
  for (double& x : a) x = std::clamp(x, 0.0, horizon);  // already within; guards rounding
  return a;
}

}  // namespace detail

// The rule for the edge exchange. With p contributions (value v_i, contribution time c_i):
//   T = the latest contribution time (among finite c_i within `horizon` of their lower median):
//       no rank can start the collective before the exchange is complete, i.e. before T.
//   v_i is believed if finite and within `horizon` of T; at least half the ranks must be believed,
//       else the pattern is unusable (the caller falls back to history or the balanced case).
//   A rank not believed is taken to arrive with the latest believed rank.
//   Every arrival is clamped to >= T (an estimate "before now" means "already there"), then the
//   vector is shifted so the earliest is 0.
// A vector whose contributions carry different call numbers (ranks that disagree about which call
// this is: a program bug) is unusable.
inline AgreedPattern sanitize_contributions(const std::vector<Contribution>& c,
                                            const SanitizeParams& prm = {}) {
  AgreedPattern out;
  const size_t p = c.size();
  if (p == 0) return out;
  const double horizon = std::isfinite(prm.horizon) && prm.horizon > 0 ? prm.horizon
                                                                       : SanitizeParams{}.horizon;
  out.all_edge = true;
  for (const Contribution& x : c) {
    if (x.kind != static_cast<double>(ContributionKind::edge)) out.all_edge = false;
    if (!(x.seq == c[0].seq)) out.consistent = false;
  }
  if (!out.consistent) {
    out.all_edge = false;
    return out;
  }
  std::vector<double> ct(p), v(p);
  for (size_t i = 0; i < p; ++i) {
    ct[i] = c[i].ctime;
    v[i] = c[i].value;
  }
  const double med = detail::lower_median(ct);
  if (!std::isfinite(med)) return out;
  double t = -std::numeric_limits<double>::infinity();
  for (double x : ct)
    if (std::isfinite(x) && std::fabs(x - med) <= horizon) t = std::max(t, x);
  std::vector<bool> valid(p);
  size_t n_valid = 0;
  for (size_t i = 0; i < p; ++i) {
    valid[i] = std::isfinite(v[i]) && std::fabs(v[i] - t) <= horizon;
    n_valid += valid[i] ? 1 : 0;
  }
  out.unknown = static_cast<int>(p - n_valid);
  if (n_valid == 0 || 2 * n_valid < p) return out;
  out.relative = detail::finish(v, valid, t, horizon);
  out.usable = true;
  return out;
}

// The rule for measured arrivals (history): entry times t_i of one call on the common clock.
// Believed: finite and within `horizon` of their lower median; at least half must be; others take
// the latest believed time.
inline AgreedPattern sanitize_measured(const std::vector<double>& t,
                                       const SanitizeParams& prm = {}) {
  AgreedPattern out;
  const size_t p = t.size();
  if (p == 0) return out;
  const double horizon = std::isfinite(prm.horizon) && prm.horizon > 0 ? prm.horizon
                                                                       : SanitizeParams{}.horizon;
  const double med = detail::lower_median(t);
  if (!std::isfinite(med)) return out;
  std::vector<bool> valid(p);
  size_t n_valid = 0;
  for (size_t i = 0; i < p; ++i) {
    valid[i] = std::isfinite(t[i]) && std::fabs(t[i] - med) <= horizon;
    n_valid += valid[i] ? 1 : 0;
  }
  out.unknown = static_cast<int>(p - n_valid);
  if (n_valid == 0 || 2 * n_valid < p) return out;
  out.relative = detail::finish(t, valid, -std::numeric_limits<double>::infinity(), horizon);
  out.usable = true;
  return out;
}

// Mean absolute difference of two patterns after shifting each to its earliest entry (the
// benchmark's prediction error). NaN if the lengths differ or either is empty.
inline double pattern_mean_abs_error(const std::vector<double>& predicted,
                                     const std::vector<double>& actual) {
  if (predicted.empty() || predicted.size() != actual.size())
    return std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> a = relative_to_earliest(predicted), b = relative_to_earliest(actual);
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) sum += std::fabs(a[i] - b[i]);
  return sum / static_cast<double>(a.size());
}

}  // namespace papcoll::prediction
