// `logz run` with [run] method = "smc": adaptive tempered SMC (smc/adaptive_smc.hpp) along a
// continuous model's geometric path from a base with an exact sampler, its settings read from
// [smc] (seed and threads from [run]), the estimate, its moves and temperatures recorded in the
// result.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "logz/config/config.hpp"
#include "logz/models/gaussian_base.hpp"
#include "logz/paths/geometric_path.hpp"
#include "logz/services/annealing_experiment.hpp"
#include "logz/services/registry.hpp"
#include "logz/services/results.hpp"
#include "logz/services/run_budget.hpp"
#include "logz/smc/adaptive_smc.hpp"
#include "logz/smc/fitted_base.hpp"
#include "logz/smc/smc_options.hpp"

namespace logz {

// The [smc] keys; their defaults are SmcOptions' own.
const KeyGroup& smc_keys();

// [smc] and [run] seed and threads. `dim`: the particles' dimension (the memory check).
SmcOptions read_smc_options(Config& config, int dim);

// [smc] pilot_base = true: the run starts from a Gaussian fitted to a pilot run's particles at
// t = 1 (their weighted mean and covariance, the standard deviations widened by
// pilot_widening), the pilot going from [base] with pilot_particles particles and a seed of its
// own. For a target known only by its energy (a logz.Target), whose base N(0, sigma^2 I) may sit
// far from it: the run from the fitted base needs few temperatures and has a small error bar.
struct SmcPilotBase {
  std::size_t particles = 0;  // 0: max(256, 8 d)
  double widening = 1.2;
};
std::optional<SmcPilotBase> read_smc_pilot_base(Config& config);

// The seed of the pilot: its streams are not the run's (the base must not depend on the
// run's own random numbers).
std::uint64_t smc_pilot_seed(std::uint64_t seed);

// The pilot's numbers in the result (kernel.pilot_base, model.base, the budget), and the flag
// pilot_disagrees on the estimate when the pilot's log Z and the run's differ by more than
// their errors allow (run_disagrees_with_pilot: 4 combined standard errors + 0.05 with the run
// below the pilot, twice that with the run above it).
void record_smc_pilot(const SmcResult& pilot, const SmcPilotBase& settings,
                      const GaussianBase& fitted, RunResult& result);

// What the run is about to do: particles, at most max_temperatures x max_moves moves.
PlannedBudget planned_smc_budget(const SmcOptions& options);

// The estimate (evidence log Z_1 / Z_0), the moves and temperatures (result.kernel) and the
// evaluations spent (result.budget).
void record_smc_result(const SmcResult& r, const SmcOptions& options, RunResult& result);

// Adaptive tempered SMC on `path` with [smc] from config, the context's progress (path fraction
// reached, in thousandths) and stop request; the answer into result.
template <ContinuousBase Base, ContinuousTarget Target>
void smc_and_estimate(const GeometricPath<Base, Target>& path, Config& config,
                      const RunContext& context, RunResult& result) {
  SmcOptions options = read_smc_options(config, path.dim());
  options.journal = context.smc_journal;  // the pilot's run, then the run's (in that order)
  options.ranks = context.ranks;
  const std::optional<SmcPilotBase> pilot_base = read_smc_pilot_base(config);
  context.announce(planned_smc_budget(options));
  options.stop = context.stop;
  const auto progress_of = [&context](const char* stage) {
    return [&context, stage](const SmcStage& s) {
      context.progress(stage, static_cast<std::size_t>(std::floor(s.temperature * 1000.0)), 1000);
    };
  };
  if (context.progress) options.progress = progress_of("smc path fraction (per mille)");
  if (!pilot_base) {
    record_smc_result(adaptive_smc(path, options), options, result);
    return;
  }
  SmcOptions pilot = options;
  pilot.num_particles = pilot_base->particles > 0
                            ? pilot_base->particles
                            : std::max<std::size_t>(256, 8 * static_cast<std::size_t>(path.dim()));
  pilot.seed = smc_pilot_seed(options.seed);
  if (context.progress) pilot.progress = progress_of("smc pilot path fraction (per mille)");
  const SmcResult pilot_run = adaptive_smc(path, pilot);
  const GaussianBase fitted = fit_gaussian_base(pilot_run, pilot_base->widening);
  const GeometricPath<GaussianBase, Target> from_fitted(fitted, path.target());
  record_smc_result(adaptive_smc(from_fitted, options), options, result);
  record_smc_pilot(pilot_run, *pilot_base, fitted, result);
}

// [run] method = "smc" (services/method_list.hpp): on a setup whose path is a continuous model's
// geometric path from a base with an exact sampler (SMC tunes its own moves).
struct SmcMethod {
  static constexpr RunMethod kId = RunMethod::smc;
  static constexpr const char* kSummary =
      "adaptive tempered SMC from an exactly sampled base (continuous models; [smc])";
  static constexpr const char* kDocs = "docs/smc.md";
  static constexpr bool kCheckpoints = true;
  static const KeyGroup* keys() { return &smc_keys(); }

  template <class Setup>
  static constexpr bool runs_on = requires(const Setup& s, Config& config,
                                           const RunContext& context, RunResult& result) {
    smc_and_estimate(s.path(), config, context, result);
  };
  template <class Setup>
  static void run(const Setup& s, Config& config, const RunContext& context, RunResult& result) {
    smc_and_estimate(s.path(), config, context, result);
  }
};

}  // namespace logz
