// Starting values of log Zhat_k for simulated tempering.
// - initial_iterations: Carlson et al. (2016), section 2.4: from Zhat_k = 1 (or
//   given values), repeat short runs (chains keep x, levels drawn afresh
//   uniformly) and update Zhat_k by eq. 12 ("rts") or by Tan's stochastic
//   update, eq. 19 ("tan", gamma_t = 1/t), until max_k |r_k - c_k| < tolerance
//   (the paper's rule: 0.1 / K).
// - wang_landau: flat-histogram updates log Zhat_k += gamma for every visit of
//   level k (applied after each sweep of all chains, in chain order, so the
//   result does not depend on threads), gamma halved whenever the visit
//   histogram is flat (every level >= flatness x mean), until gamma < final_gamma.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "logz/core/enum_names.hpp"
#include "logz/tempering/log_z_hat_updates.hpp"
#include "logz/tempering/simulated_tempering.hpp"

namespace logz {

// The update of log Zhat_k after each initial iteration: eq. 12 or Tan's eq. 19.
LOGZ_NAMED_ENUM(InitialUpdate, rts, tan);

struct InitialIterationsResult {
  std::vector<double> log_z_hat;
  int iterations = 0;
  bool converged = false;
  std::vector<double> deviations;  // max_k |r_k - c_k| of each iteration
};

// One initial iteration on `so_far` (log_z_hat, iterations and deviations updated); returns
// whether another is due. initial_iterations() repeats it; a caller that checkpoints between
// iterations does the same with `so_far` saved.
template <class Tempering>
bool initial_iteration(Tempering& tempering, InitialIterationsResult& so_far,
                       std::size_t sweeps_per_iteration, int max_iterations, double tolerance,
                       InitialUpdate update = InitialUpdate::rts) {
  if (so_far.converged || so_far.iterations >= max_iterations) return false;
  const auto log_prior = tempering.ladder().log_prior();
  std::vector<double>& log_z_hat = so_far.log_z_hat;
  const int it = ++so_far.iterations;
  tempering.redraw_levels_uniform();
  const TemperingStats stats =
      tempering.run(sweeps_per_iteration, log_z_hat, {}, /*integrands=*/false);
  const std::vector<double> log_c = stats.log_c();
  const double deviation = max_level_deviation(log_c, log_prior);
  so_far.deviations.push_back(deviation);
  if (update == InitialUpdate::rts) {
    for (std::size_t k = 0; k < log_z_hat.size(); ++k)
      log_z_hat[k] += log_prior[0] - log_prior[k] + log_c[k] - log_c[0];
  } else {
    log_z_hat = tan_update(log_z_hat, log_c, log_prior, 1.0 / it);
  }
  so_far.converged = deviation < tolerance;
  return !so_far.converged && so_far.iterations < max_iterations;
}

template <class Tempering>
InitialIterationsResult initial_iterations(Tempering& tempering, std::vector<double> log_z_hat,
                                           std::size_t sweeps_per_iteration, int max_iterations,
                                           double tolerance,
                                           InitialUpdate update = InitialUpdate::rts) {
  InitialIterationsResult r;
  r.log_z_hat = std::move(log_z_hat);
  while (initial_iteration(tempering, r, sweeps_per_iteration, max_iterations, tolerance, update)) {
  }
  return r;
}

struct WangLandauOptions {
  double initial_gamma = 1.0;
  double final_gamma = 1e-3;
  double flatness = 0.8;
  std::size_t max_sweeps = 100000;
};

// Where Wang-Landau stands between sweeps.
struct WangLandauState {
  std::vector<double> log_z_hat, histogram;
  double gamma = 1.0;
  std::size_t sweeps = 0;
  int stages = 0;  // halvings of gamma so far

  WangLandauState() = default;
  WangLandauState(std::vector<double> start, const WangLandauOptions& options)
      : log_z_hat(std::move(start)),
        histogram(log_z_hat.size(), 0.0),
        gamma(options.initial_gamma) {}
  bool done(const WangLandauOptions& options) const {
    return gamma < options.final_gamma || sweeps >= options.max_sweeps;
  }
};

// One sweep of Wang-Landau on `state`; wang_landau() repeats it until state.done(options).
template <class Tempering>
void wang_landau_sweep(Tempering& tempering, WangLandauState& state,
                       const WangLandauOptions& options = {}) {
  const std::size_t k_levels = state.log_z_hat.size();
  const TemperingStats stats = tempering.run(1, state.log_z_hat, {}, /*integrands=*/false);
  ++state.sweeps;
  const auto counts = stats.counts();
  const double chains = static_cast<double>(stats.chains.size());
  for (std::size_t k = 0; k < k_levels; ++k) {
    // Each visit raises Zhat_k, pushing chains towards rarely visited levels.
    state.log_z_hat[k] += state.gamma * static_cast<double>(counts[k]) / chains;
    state.histogram[k] += static_cast<double>(counts[k]);
  }
  double mean = 0, low = state.histogram[0];
  for (double h : state.histogram)
    mean += h / static_cast<double>(k_levels), low = std::min(low, h);
  if (low >= options.flatness * mean && mean > 0) {
    state.gamma *= 0.5;
    ++state.stages;
    std::fill(state.histogram.begin(), state.histogram.end(), 0.0);
  }
}

// What Wang-Landau gives when it stops: log Zhat relative to level 0.
inline InitialIterationsResult wang_landau_result(WangLandauState state,
                                                  const WangLandauOptions& options = {}) {
  InitialIterationsResult r;
  r.iterations = state.stages;
  r.converged = state.gamma < options.final_gamma;
  for (std::size_t k = 1; k < state.log_z_hat.size(); ++k) state.log_z_hat[k] -= state.log_z_hat[0];
  state.log_z_hat[0] = 0.0;
  r.log_z_hat = std::move(state.log_z_hat);
  return r;
}

template <class Tempering>
InitialIterationsResult wang_landau(Tempering& tempering, std::vector<double> log_z_hat,
                                    const WangLandauOptions& options = {}) {
  WangLandauState state(std::move(log_z_hat), options);
  while (!state.done(options)) wang_landau_sweep(tempering, state, options);
  return wang_landau_result(std::move(state), options);
}

}  // namespace logz
