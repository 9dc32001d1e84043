#include "schedule/clairvoyant/clock.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace papcoll::clairvoyant {

Clock make_clock(const Instance& in) {
  if (in.p < 1) throw std::invalid_argument("clairvoyant: p must be at least 1");
  if (in.segments < 1) throw std::invalid_argument("clairvoyant: segments must be at least 1");
  if (in.root < 0 || in.root >= in.p)
    throw std::invalid_argument("clairvoyant: root " + std::to_string(in.root) + " out of range");
  const double d = in.round_time;
  if (!(std::isfinite(d) && d > 0))
    throw std::invalid_argument("clairvoyant: the round time must be positive and finite");
  if (!in.arrivals.empty() && static_cast<int>(in.arrivals.size()) != in.p)
    throw std::invalid_argument("clairvoyant: " + std::to_string(in.arrivals.size()) +
                                " arrival times for p=" + std::to_string(in.p));
  for (double a : in.arrivals)
    if (!std::isfinite(a)) throw std::invalid_argument("clairvoyant: arrival time not finite");

  Clock c;
  c.k0.assign(static_cast<size_t>(in.p), 0);
  c.f.assign(static_cast<size_t>(in.p), 0.0);
  if (in.arrivals.empty()) return c;
  const double lo = *std::min_element(in.arrivals.begin(), in.arrivals.end());
  for (int i = 0; i < in.p; ++i) {
    const double a = in.arrivals[i] - lo;  // >= 0
    // fmod is exact: a - n*d for the integer n = trunc(a/d), in [0, d). (a - f) / d is then n up
    // to rounding, which llround removes while n is far below 2^52.
    const double f = std::fmod(a, d);
    const double n = (a - f) / d;
    if (n > 1e15)
      throw std::invalid_argument("clairvoyant: arrival spread too large for the round time");
    c.k0[i] = std::llround(n);
    c.f[i] = f;
  }
  // Every decision compares fractional times, never adds them: replacing each by its rank among
  // them (equal times, equal ranks) changes no decision and makes the run a function of (k0, the
  // ranks) alone, the schedule cache's key (clairvoyant_arrival_key).
  std::vector<double> sorted = c.f;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  for (double& f : c.f)
    f = static_cast<double>(std::lower_bound(sorted.begin(), sorted.end(), f) - sorted.begin());
  return c;
}

}  // namespace papcoll::clairvoyant
