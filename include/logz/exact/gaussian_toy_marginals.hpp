// Exact answers for the Gaussian toy of Habeck (2017), section 4, along a schedule
// 0 = t_0 < ... < t_K = 1: the stationary p_k = N(mu_k, sigma_k^2), the marginals of
// the forward process (q_k, Eq. 10) and of the reverse process, propagated through the
// kernels T_k(x | x') = N((1 - rho_k) mu_k + rho_k x', (1 - rho_k^2) sigma_k^2) with
// rho_k = tau_k^steps, and the exact distribution summaries of the works
//   W_f = sum_k [U_k(x_{k-1}) - U_{k-1}(x_{k-1})],  W_r = sum_k [U_{k-1}(y_k) - U_k(y_k)]
// (U_k(x) = (x - mu_k)^2 / (2 sigma_k^2), nats), run exactly as the annealer runs them:
// forward from exact base draws, a kernel after every increment but the last; reverse from
// exact target draws. The paths are Gaussian processes and each work a sum of quadratics
// of one, so mean, variance and E[exp(-lambda W)] are closed-form, in O(K).
//
// This is an oracle: it shares no code with models/gaussian_toy.hpp (the interpolation of
// mu, sigma and tau along t is written out again here, after michaelhabeck/paths'
// GeometricBridge).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "logz/anneal/works.hpp"
#include "logz/core/estimate.hpp"

namespace logz::exact {

struct GaussianToySpec {
  double mu_start = 20.0, sigma_start = 10.0;
  double mu_end = 0.0, sigma_end = 1.0;
  double tau_start = 0.9, tau_end = 0.995;
  std::size_t steps_per_temperature = 1;
};

struct NormalMoments {
  double mean = kNaN;
  double variance = kNaN;
};

// Summaries of one direction's work distribution.
struct WorkSummary {
  double mean = kNaN;
  double variance = kNaN;
  // log E[exp(-W)]: log(Z_K / Z_0) forward, log(Z_0 / Z_K) reverse (Jarzynski, exactly).
  double log_mean_exp = kNaN;
  // Var(exp(-W)) / E[exp(-W)]^2: the relative variance of the AIS (RAISE) weights, so that
  // the large-sample SE of AIS (RAISE) from M paths is sqrt(this / M); +inf when
  // E[exp(-2W)] diverges (then the estimator's SE is meaningless and it is biased upward
  // (RAISE) or downward (AIS) at any practical M).
  double weight_relative_variance = kNaN;
};

struct GaussianToyMarginals {
  std::vector<double> fractions;          // t_0..t_K
  std::vector<NormalMoments> stationary;  // p_k, k = 0..K
  // Forward state x_k after the kernel at t_k (x_0 ~ p_0); k = 0..K-1, [K] NaN (no kernel
  // runs at the target). These are the q_k of Eq. (10).
  std::vector<NormalMoments> forward;
  // Reverse state y_k after the kernel at t_k (y_K ~ p_K); k = 1..K, [0] NaN.
  std::vector<NormalMoments> reverse;
  // Means of the trace energy D(x) = U_K(x) - U_0(x) (the energy that the geometric path
  // tempers): under p_k, and the annealer's expected forward and reverse traces (NaN where
  // the direction has no state, as in Works::mean_energy).
  std::vector<double> equilibrium_energy, forward_energy, reverse_energy;
  double log_z = kNaN;  // log(Z_K / Z_0) = log(sigma_end / sigma_start)
  WorkSummary forward_work, reverse_work;
  double lower_bound = kNaN;  // -E[W_f] <= log_z
  double upper_bound = kNaN;  // E[W_r] >= log_z
};

// Throws InvalidArgument for a spec a GaussianToy would reject (sigmas > 0, taus in [0, 1],
// finite means, steps >= 1) or a schedule that is not 0 = t_0 < ... < t_K = 1.
GaussianToyMarginals gaussian_toy_marginals(const GaussianToySpec& spec,
                                            std::span<const double> fractions);

// log E[exp(-lambda W)] of one direction's work for lambda > 0; +inf where it diverges.
double gaussian_toy_log_work_moment(const GaussianToySpec& spec, std::span<const double> fractions,
                                    Direction direction, double lambda);

}  // namespace logz::exact
