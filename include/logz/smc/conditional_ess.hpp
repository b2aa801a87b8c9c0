// The next temperature of adaptive tempered SMC (Zhou, Johansen & Aston 2016): the conditional
// effective sample size of moving weighted particles from t to t' on the geometric path,
//     CESS(t') = N (sum_i W_i w_i)^2 / sum_i W_i w_i^2,   w_i = exp(-(t' - t) g_i),
// with W the current normalised weights and g_i = U_1(x_i) - U_0(x_i) the energy gap, measures
// how much the incremental weights alone degrade the particles (CESS(t) = N). Unlike the ESS of
// the accumulated weights it does not depend on how long ago the last resampling was, so a fixed
// target fraction of N gives steps of equal difficulty. All sums are in log space.
#pragma once

#include <cmath>
#include <limits>
#include <span>

namespace logz {

// log w_i = -(t' - t) g: 0 for no step, -inf where the gap is +inf or NaN (no mass there).
// Inline: the next temperature's search calls it for every particle some ten times a temperature.
inline double log_incremental_weight(double dt, double gap) {
  if (dt == 0.0) return 0.0;
  const double log_w = -dt * gap;
  return std::isnan(log_w) ? -std::numeric_limits<double>::infinity() : log_w;
}

// One reweighting: log_w_i += log_incremental_i - increment, where increment =
// log sum_i exp(log_w_i + log_incremental_i) is the stage's log Z increment (log_w normalised
// before, and after). A NumericalError naming `who` and the temperature t reached when no
// particle keeps a finite weight (every energy there +inf or NaN).
double reweight(std::span<double> log_w, std::span<const double> log_incremental, const char* who,
                double t);

// The ESS of normalised log weights, (sum W)^2 / sum W^2, as a fraction of N.
double ess_fraction(std::span<const double> log_weights);

// CESS(t + dt) / N for normalised log weights (log_sum_exp(log_weights) = 0) and gaps g_i.
double conditional_ess_fraction(std::span<const double> log_weights, std::span<const double> gaps,
                                double dt);

// The t' in (t, 1] with CESS(t') = target_fraction N, found to 1e-12 in t (false position with
// the Illinois modification, bisection where that stalls; CESS(t') at most the target), or 1
// when CESS(1) is at least that. target_fraction in (0, 1) (InvalidArgument otherwise).
double next_temperature(std::span<const double> log_weights, std::span<const double> gaps, double t,
                        double target_fraction);

}  // namespace logz
