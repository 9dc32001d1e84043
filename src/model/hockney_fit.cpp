#include "model/hockney_fit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

namespace papcoll {

double student_t95(int dof) {
  // Two-sided 95% quantiles (t_{0.975}) for 1..30 degrees of freedom, then a few tabulated points.
  static const double small[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
                                 2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
                                 2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
                                 2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
  if (dof < 1) return std::numeric_limits<double>::infinity();
  if (dof <= 30) return small[dof - 1];
  if (dof <= 40) return 2.021;
  if (dof <= 60) return 2.000;
  if (dof <= 120) return 1.980;
  if (dof < 1000) return 1.962;
  return 1.960;
}

LineFit fit_line(const std::vector<double>& x, const std::vector<double>& y,
                 const std::vector<double>& w) {
  LineFit f;
  const size_t n = std::min(x.size(), y.size());
  f.points = static_cast<int>(n);
  if (n < 3 || (!w.empty() && w.size() < n)) return f;
  auto weight = [&](size_t i) { return w.empty() ? 1.0 : w[i]; };
  double sw = 0, mx = 0, my = 0;
  for (size_t i = 0; i < n; ++i) {
    sw += weight(i);
    mx += weight(i) * x[i];
    my += weight(i) * y[i];
  }
  if (!(sw > 0)) return f;
  mx /= sw;
  my /= sw;
  double sxx = 0, sxy = 0;
  for (size_t i = 0; i < n; ++i) {
    sxx += weight(i) * (x[i] - mx) * (x[i] - mx);
    sxy += weight(i) * (x[i] - mx) * (y[i] - my);
  }
  if (!(sxx > 0)) return f;
  f.slope = sxy / sxx;
  f.intercept = my - f.slope * mx;
  double ssr = 0;
  for (size_t i = 0; i < n; ++i) {
    const double r = y[i] - (f.intercept + f.slope * x[i]);
    ssr += weight(i) * r * r;
  }
  const double s2 = ssr / static_cast<double>(n - 2);
  const double t = student_t95(static_cast<int>(n - 2));
  f.slope_ci = t * std::sqrt(s2 / sxx);
  f.intercept_ci = t * std::sqrt(s2 * (1.0 / sw + mx * mx / sxx));
  f.ok = std::isfinite(f.slope) && std::isfinite(f.intercept);
  return f;
}

std::vector<double> relative_weights(const std::vector<double>& x, const std::vector<double>& y) {
  const size_t n = std::min(x.size(), y.size());
  std::map<double, std::pair<double, int>> at;  // x -> (sum of y, count)
  for (size_t i = 0; i < n; ++i) {
    at[x[i]].first += y[i];
    ++at[x[i]].second;
  }
  std::vector<double> w(n);
  for (size_t i = 0; i < n; ++i) {
    const auto& [sum, count] = at[x[i]];
    const double mean = sum / count;
    w[i] = mean > 0 ? 1.0 / (mean * mean) : 0.0;
  }
  return w;
}

double relative_ci(double value, double half_width) {
  if (!(value > 0)) return std::numeric_limits<double>::infinity();
  return half_width / value;
}

}  // namespace papcoll
