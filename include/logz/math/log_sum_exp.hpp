// Log-space sums and means: shifted by the maximum so that log weights of any
// magnitude (1e5 and beyond) neither overflow nor underflow.
#pragma once

#include <span>

namespace logz {

// log(sum_i exp(x_i)); -inf for an empty span or all -inf; NaN if any x_i is NaN;
// +inf if any x_i is +inf.
double log_sum_exp(std::span<const double> x);

// log((1/n) sum_i exp(x_i)).
double log_mean_exp(std::span<const double> x);

// log(exp(a) + exp(b)) for two numbers.
double log_add_exp(double a, double b);

// log(1 + exp(x)) without overflow (softplus).
double log1p_exp(double x);

}  // namespace logz
