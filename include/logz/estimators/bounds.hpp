// Sandwich bounds on log Z from mean works (Jensen's inequality), in units of kT:
//   lower = -mean(W_f) <= log Z <= mean(W_r) = upper,
// with the conventions of jarzynski.hpp (E_f[exp(-W_f)] = Z, E_r[exp(-W_r)] = 1/Z). The bounds
// hold for the expectations; a finite-sample mean can cross log Z by a few std_error.
#pragma once

#include <span>

#include "logz/core/estimate.hpp"

namespace logz {

// lower = -mean(W_f) (method "lower_bound"). std_error ("sample_mean") is sd / sqrt(M) with the
// (M - 1) sample sd: the Monte Carlo error of the bound, not its distance to log Z. Flags
// "too_few_samples" (M < 2) and "zero_variance" (all works equal) come with std_error NaN.
// Throws InvalidArgument on an empty span or a NaN/inf work, naming the first bad index.
Estimate lower_bound(std::span<const double> forward_works);

// upper = mean(W_r) (method "upper_bound"); std_error, flags and errors as for lower_bound().
Estimate upper_bound(std::span<const double> reverse_works);

}  // namespace logz
