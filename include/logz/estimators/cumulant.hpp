// Hummer's cumulant estimators of log Z (Hummer, J. Chem. Phys. 114, 7330 (2001); Habeck 2017,
// eqs. 12-13) from the mean and variance of the works, in units of kT, with the conventions of
// jarzynski.hpp (E_f[exp(-W_f)] = Z, E_r[exp(-W_r)] = 1/Z):
//   forward   log Z ~ -<W_f> + var_f / 2            (exact for Gaussian forward works)
//   reverse   log Z ~  <W_r> - var_r / 2            (exact for Gaussian reverse works)
//   two-sided log Z ~ (<W_r> - <W_f>) / 2 + (var_f - var_r) / 12
// The two-sided form cancels the third cumulant (by Crooks' relation) and is exact up to the
// fifth cumulant; all three use the unbiased (M - 1) variance, so they are unbiased for Gaussian
// works. std_error ("delta") is the delta-method (influence-function) error described below.
#pragma once

#include <span>

#include "logz/core/estimate.hpp"

namespace logz {

// -<W_f> + var_f / 2 (method "cumulant_forward"). std_error ("delta"): sd(psi) / sqrt(M) with the
// influence values psi_i = -(W_i - mean) + ((W_i - mean)^2 - var) / 2, the large-sample error of
// the estimate as a function of the sample mean and variance (it includes the fourth moment).
// The truncation of the expansion is not in the error bar; diagnostics: values "skewness" and
// "excess_kurtosis" of the works and "truncation" = |k3| / 6, the size of the neglected third-
// cumulant term; flag "non_gaussian" when truncation > 2 std_error (the expansion then misses more
// than the statistical error), "too_few_samples" (M < 3, std_error NaN), "zero_variance".
// Throws InvalidArgument on an empty span or a NaN/inf work, naming the first bad index.
Estimate cumulant_forward(std::span<const double> forward_works);

// <W_r> - var_r / 2 (method "cumulant_reverse"); error, diagnostics and flags as for the forward
// estimator, applied to the reverse works.
Estimate cumulant_reverse(std::span<const double> reverse_works);

// The two-sided estimator (method "cumulant", Habeck 2017 eq. 13). std_error ("delta"):
// sqrt(var(psi_f) / N_f + var(psi_r) / N_r) with psi_f = -(W_f - mean_f) / 2 +
// ((W_f - mean_f)^2 - var_f) / 12 and psi_r = (W_r - mean_r) / 2 - ((W_r - mean_r)^2 - var_r) / 12.
// diagnostics: value "forward_reverse_gap" = cumulant_forward - cumulant_reverse, zero in
// expectation when the works are Gaussian and satisfy Crooks' relation, and "gap_std_error";
// flag "non_gaussian" when |gap| > 5 gap_std_error (the one-sided expansions disagree, so the
// neglected higher cumulants matter), plus "too_few_samples" / "zero_variance" as above.
Estimate cumulant(std::span<const double> forward_works, std::span<const double> reverse_works);

}  // namespace logz
