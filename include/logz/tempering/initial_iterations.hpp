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

#include <cmath>
#include <string>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/estimators/rts.hpp"
#include "logz/tempering/simulated_tempering.hpp"

namespace logz {

struct InitialIterationsResult {
  std::vector<double> log_z_hat;
  int iterations = 0;
  bool converged = false;
  std::vector<double> deviations;  // max_k |r_k - c_k| of each iteration
};

template <class Tempering>
InitialIterationsResult initial_iterations(Tempering& tempering, std::vector<double> log_z_hat,
                                           std::size_t sweeps_per_iteration, int max_iterations,
                                           double tolerance, const std::string& update = "rts") {
  if (update != "rts" && update != "tan")
    fail_argument("logz::initial_iterations", "update", "\"rts\" or \"tan\", got \"" + update + "\"");
  const auto log_prior = tempering.ladder().log_prior();
  InitialIterationsResult r;
  for (int it = 1; it <= max_iterations; ++it) {
    tempering.redraw_levels_uniform();
    const TemperingStats stats = tempering.run(sweeps_per_iteration, log_z_hat);
    const std::vector<double> log_c = stats.log_c();
    const double deviation = max_level_deviation(log_c, log_prior);
    r.deviations.push_back(deviation);
    r.iterations = it;
    if (update == "rts") {
      for (std::size_t k = 0; k < log_z_hat.size(); ++k)
        log_z_hat[k] += log_prior[0] - log_prior[k] + log_c[k] - log_c[0];
    } else {
      log_z_hat = tan_update(log_z_hat, log_c, log_prior, 1.0 / it);
    }
    if (deviation < tolerance) {
      r.converged = true;
      break;
    }
  }
  r.log_z_hat = std::move(log_z_hat);
  return r;
}

struct WangLandauOptions {
  double initial_gamma = 1.0;
  double final_gamma = 1e-3;
  double flatness = 0.8;
  std::size_t max_sweeps = 100000;
};

template <class Tempering>
InitialIterationsResult wang_landau(Tempering& tempering, std::vector<double> log_z_hat,
                                    const WangLandauOptions& options = {}) {
  const std::size_t k_levels = log_z_hat.size();
  std::vector<double> histogram(k_levels, 0.0);
  double gamma = options.initial_gamma;
  InitialIterationsResult r;
  std::size_t sweeps = 0;
  while (gamma >= options.final_gamma && sweeps < options.max_sweeps) {
    const TemperingStats stats = tempering.run(1, log_z_hat);
    ++sweeps;
    const auto counts = stats.counts();
    const double chains = static_cast<double>(stats.chains.size());
    for (std::size_t k = 0; k < k_levels; ++k) {
      // Each visit raises Zhat_k, pushing chains towards rarely visited levels.
      log_z_hat[k] += gamma * static_cast<double>(counts[k]) / chains;
      histogram[k] += static_cast<double>(counts[k]);
    }
    double mean = 0, low = histogram[0];
    for (double h : histogram) mean += h / static_cast<double>(k_levels), low = std::min(low, h);
    if (low >= options.flatness * mean && mean > 0) {
      gamma *= 0.5;
      ++r.iterations;
      std::fill(histogram.begin(), histogram.end(), 0.0);
    }
  }
  r.converged = gamma < options.final_gamma;
  for (std::size_t k = 1; k < k_levels; ++k) log_z_hat[k] -= log_z_hat[0];
  log_z_hat[0] = 0.0;
  r.log_z_hat = std::move(log_z_hat);
  return r;
}

}  // namespace logz
