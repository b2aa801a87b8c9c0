// `logz run` with [run] method = "tempering": simulated tempering on the same model-paths and
// kernels as annealing, with the initial iterations of Carlson et al. (2016) (or Wang-Landau),
// a final run, and the tempered-sample estimators of the estimator registry (RTS, TS, TI
// variants, MBAR) for the target and for every level.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "logz/services/config.hpp"
#include "logz/services/estimators.hpp"
#include "logz/services/registry.hpp"
#include "logz/tempering/initial_iterations.hpp"
#include "logz/tempering/simulated_tempering.hpp"

namespace logz {

// The [tempering] keys.
const KeyGroup& tempering_keys();

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
  TemperingLadder ladder{linear_schedule(1)};
};

// What a model changes in the [tempering] defaults.
struct TemperingDefaults {
  std::int64_t chunk_size = 4;  // chains per chunk (an RBM's chunk is one GEMM: 50)
};

// Reads [tempering], [schedule] (the ladder; num_steps defaults to num_temperatures - 1) and
// [estimators] (seed and threads from [run]). `geometric`: whether the path is linear in beta
// (ti_corrected needs that).
TemperingSettings read_tempering_settings(Config& config, bool geometric, const TemperingDefaults& defaults = {});

// The estimates of every requested method from one final run, and the ladder's summary.
void tempering_estimates(const TemperingStats& stats, const TemperingSettings& s,
                         std::span<const double> log_z_hat, RunResult& result);

template <class Path, class Kernel>
void temper_and_estimate(const Path& path, const Kernel& kernel, Config& config, const ProgressFn& progress,
                         RunResult& result, const TemperingDefaults& defaults = {}) {
  const TemperingSettings s = read_tempering_settings(config, is_geometric_path<Path>, defaults);
  SimulatedTempering<Path, Kernel> st(path, kernel, s.ladder, s.options);
  std::vector<double> log_z_hat(s.ladder.size(), 0.0);
  TemperingSummary summary;
  summary.initialization = s.initialization;
  if (s.initialization == "iterations") {
    const double tol = s.tolerance > 0 ? s.tolerance : 0.1 / static_cast<double>(s.ladder.size());
    const auto r = initial_iterations(st, log_z_hat, s.sweeps_per_iteration, s.max_initial_iterations, tol,
                                      s.initial_update);
    log_z_hat = r.log_z_hat;
    summary.iterations = r.iterations;
    summary.converged = r.converged;
    summary.tolerance = tol;
    summary.iteration_deviations = r.deviations;
  } else if (s.initialization == "wang_landau") {
    const auto r = wang_landau(st, log_z_hat);
    log_z_hat = r.log_z_hat;
    summary.stages = r.iterations;
    summary.converged = r.converged;
  }
  const TemperingStats stats = st.run(s.num_sweeps, log_z_hat, [&](std::size_t d, std::size_t n) {
    if (progress) progress("tempering", d, n);
  });
  summary.log_z_hat_initial = log_z_hat;
  summary.num_chains = s.options.num_chains;
  summary.num_sweeps = s.num_sweeps;
  result.tempering = std::move(summary);
  tempering_estimates(stats, s, log_z_hat, result);
  if (!result.tempering->converged.value_or(true))
    for (auto& e : result.estimates) e.diagnostics.add_flag("initialization_not_converged");
}

}  // namespace logz
