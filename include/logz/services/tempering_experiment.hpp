// `logz run` with [run] method = "tempering": simulated tempering on the same
// model-paths and kernels as annealing, with the initial iterations of
// Carlson et al. (2016) (or Wang-Landau), a final run, and the tempered-sample
// estimators (RTS, TS, TI variants, MBAR) for the target and for every level.
#pragma once

#include <algorithm>

#include <string>
#include <vector>

#include "logz/estimators/mbar.hpp"
#include "logz/estimators/rts.hpp"
#include "logz/estimators/thermodynamic_integration.hpp"
#include "logz/services/config.hpp"
#include "logz/services/experiment.hpp"
#include "logz/tempering/initial_iterations.hpp"

namespace logz {

struct TemperingSettings {
  TemperingOptions options;
  std::string prior = "uniform";
  double prior_slope = 2.0;
  std::string initialization = "iterations";  // "iterations", "wang_landau", "none"
  std::string initial_update = "rts";         // "rts" or "tan"
  int max_initial_iterations = 50;
  std::size_t sweeps_per_iteration = 50;
  double tolerance = 0.0;                     // 0: the paper's 0.1 / K
  std::size_t num_sweeps = 1000;
  std::vector<std::string> methods;
};

// The tempered-sample estimator names: rts, ts, ti_riemann, ti_trapezoid, ti_corrected, ti_rb, mbar.
const std::vector<std::string>& tempering_estimator_names();

// Reads [tempering] and [estimators] (seed and threads from [run]); the ladder
// comes from [schedule], whose num_steps defaults to num_temperatures - 1.
TemperingSettings read_tempering_settings(Config& config, Schedule& ladder_out);

// The estimates of every requested method from one final run.
void tempering_estimates(const TemperingStats& stats, const TemperingLadder& ladder,
                         std::span<const double> log_z_hat, const std::vector<std::string>& methods,
                         ExperimentResult& result);

template <class Path, class Kernel>
void temper_and_estimate(const Path& path, const Kernel& kernel, Config& config,
                         const ProgressFn& progress, ExperimentResult& result) {
  Schedule betas = linear_schedule(1);
  TemperingSettings s = read_tempering_settings(config, betas);
  if constexpr (!is_geometric_path<Path>) {
    if (std::find(s.methods.begin(), s.methods.end(), "ti_corrected") != s.methods.end())
      config.section("estimators")
          .fail("methods", "no \"ti_corrected\" on a path not linear in beta (it needs a geometric path)");
  }
  const TemperingLadder ladder = s.prior == "uniform" ? TemperingLadder(betas)
                                                      : exponential_prior_ladder(betas, s.prior_slope);
  SimulatedTempering<Path, Kernel> st(path, kernel, ladder, s.options);
  std::vector<double> log_z_hat(ladder.size(), 0.0);
  nlohmann::json init = {{"method", s.initialization}};
  if (s.initialization == "iterations") {
    const double tol = s.tolerance > 0 ? s.tolerance : 0.1 / static_cast<double>(ladder.size());
    const auto r = initial_iterations(st, log_z_hat, s.sweeps_per_iteration, s.max_initial_iterations, tol,
                                      s.initial_update);
    log_z_hat = r.log_z_hat;
    init["iterations"] = r.iterations;
    init["converged"] = r.converged;
    init["tolerance"] = tol;
    init["max_level_deviation"] = r.deviations;
  } else if (s.initialization == "wang_landau") {
    const auto r = wang_landau(st, log_z_hat);
    log_z_hat = r.log_z_hat;
    init["stages"] = r.iterations;
    init["converged"] = r.converged;
  }
  ProgressFn p = progress;
  const TemperingStats stats = st.run(s.num_sweeps, log_z_hat, [&](std::size_t d, std::size_t n) {
    if (p) p("tempering", d, n);
  });
  tempering_estimates(stats, ladder, log_z_hat, s.methods, result);
  result.details["tempering"]["initialization"] = init;
  result.details["tempering"]["log_z_hat_initial"] = log_z_hat;
  result.details["tempering"]["num_chains"] = s.options.num_chains;
  result.details["tempering"]["num_sweeps"] = s.num_sweeps;
  if (!init.value("converged", true) && s.initialization != "none") {
    for (auto& e : result.estimates) e.diagnostics.add_flag("initialization_not_converged");
  }
}

}  // namespace logz
