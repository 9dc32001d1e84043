// Least-squares fit of the Hockney model, time = alpha + beta * bytes, with 95% confidence
// intervals: how papcoll-model turns ping-pong timings into a link's parameters and decides when
// it has measured enough (docs/papcoll-model.md). No MPI.
#pragma once

#include <vector>

namespace papcoll {

struct LineFit {
  bool ok = false;  // at least 3 points and 2 distinct x
  int points = 0;
  double intercept = 0, slope = 0;
  // Half-widths of the 95% confidence intervals (Student t with points - 2 degrees of freedom);
  // 0 for a perfect fit.
  double intercept_ci = 0, slope_ci = 0;
};

// Least squares of y on x: ordinary without weights, else weighted (point i counts w[i]; w = 1 /
// variance of y[i] gives the best linear unbiased estimate). The confidence intervals assume the
// weights are right up to a common factor, which the residuals estimate.
LineFit fit_line(const std::vector<double>& x, const std::vector<double>& y,
                 const std::vector<double>& w = {});

// Weights for timings whose noise grows with their size: 1 / (mean y at the same x)^2, i.e. equal
// relative errors. Ping-pong times of large messages scatter in proportion, and unweighted they
// would drown the latency (the intercept) in their noise.
std::vector<double> relative_weights(const std::vector<double>& x, const std::vector<double>& y);

// The two-sided 95% quantile of Student's t distribution with `dof` degrees of freedom (dof >= 1;
// the normal quantile 1.96 from 1000 on).
double student_t95(int dof);

// Half-width over |value|: how tight an estimate is; infinity for a value of 0 or below (not a
// usable link parameter yet).
double relative_ci(double value, double half_width);

}  // namespace papcoll
