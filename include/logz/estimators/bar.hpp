// Bennett acceptance ratio (BAR) over forward and reverse works, in units of kT, with the
// conventions of jarzynski.hpp (E_f[exp(-W_f)] = Z, E_r[exp(-W_r)] = 1/Z). With
// DeltaF = -log Z, f(x) = 1/(1 + exp(x)) and M = log(N_f / N_r), BAR solves Bennett's equation
//   sum_i f(M + W_f_i - DeltaF) = sum_j f(-M + W_r_j + DeltaF),
// exactly as pymbar's BAR(w_F, w_R) (which returns DeltaF); Estimate::log_z is -DeltaF.
#pragma once

#include <span>

#include "logz/core/estimate.hpp"

namespace logz {

struct BarOptions {
  double tolerance = 1e-12;  // absolute tolerance on DeltaF = -log Z (nats), must be > 0
  int max_iterations = 200;  // solver iterations (Brent steps or fixed-point updates), >= 1
};

// Solves g(DeltaF) = log sum_i f(x_i) - log sum_j f(y_j) = 0 (x = M + W_f - DeltaF,
// y = -M + W_r + DeltaF; g is increasing and overflow-free for works of 1e5) by Brent's method
// on a bracket grown from the AIS, RAISE and bound estimates, to about tolerance + 4 eps |DeltaF|.
// std_error ("bar_asymptotic") is pymbar 3's 'BAR' asymptotic standard deviation (Shirts et al.,
// PRL 2003), var = (<f^2>_F/<f>_F^2 - 1)/N_f + (<f^2>_R/<f>_R^2 - 1)/N_r, a large-sample error
// that is too small when overlap is poor. diagnostics: overlap = O_01 + O_10 of the 2-state MBAR
// overlap matrix (1 = identical, -> 0 = none), values "delta_f" (-log Z) and
// "bracket_expansions"; flags "poor_overlap" (overlap < 0.03), "not_converged" (converged false,
// max_iterations hit), "too_few_samples" (N_f or N_r < 2) and "zero_variance" (both sides
// constant), the last two with std_error NaN. Throws InvalidArgument on an empty span, a NaN/inf
// work (naming the first bad index) or bad options.
Estimate bar(std::span<const double> forward_works, std::span<const double> reverse_works,
             const BarOptions& options = {});

// The same estimate by the self-consistent iteration of Habeck (2017), Algorithm 1:
// Z <- Z * sum_i f(M + W_f_i + log Z) / sum_j f(-M + W_r_j - log Z), done in log space from the
// average of the AIS and RAISE estimates, until an update moves log Z by less than
// tolerance + 4 eps |log Z|. It converges linearly (slowly when overlap is poor, where it may
// end "not_converged"); kept for comparison with bar(). std_error, overlap and flags as bar().
Estimate bar_fixed_point(std::span<const double> forward_works,
                         std::span<const double> reverse_works, const BarOptions& options = {});

}  // namespace logz
