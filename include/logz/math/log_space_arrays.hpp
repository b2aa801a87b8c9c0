// Array versions of log_sum_exp.hpp's functions, vectorised with Highway's exp and log and
// dispatched at run time to the processor's instruction set: the same values to a few units in
// the last place (the last bits may differ between instruction sets, never between runs on one
// machine), at a fraction of the time over 10^6 numbers.
#pragma once

#include <span>

namespace logz {

// out_i = log(1 + exp(x_i)) (softplus) without overflow, as log1p_exp(double): +inf for +inf, 0
// for -inf, NaN for NaN. out may be x itself; throws InvalidArgument if the sizes differ.
void log1p_exp(std::span<const double> x, std::span<double> out);

// out_i = exp(x_i) for x_i <= 706 (Highway's range; above it, and at +inf, no defined value:
// for log-probabilities and other exponents <= 0), 0 below -1000 and for -inf, NaN for NaN. out
// may be x itself; throws InvalidArgument if the sizes differ.
void exp_array(std::span<const double> x, std::span<double> out);

// log sum_i exp(scale x_i), shifted by the maximum; -inf for an empty span or all terms -inf,
// NaN if any term is NaN, +inf if any is +inf (as log_sum_exp of the scaled values).
double log_sum_exp_scaled(std::span<const double> x, double scale);

}  // namespace logz
