// `logz run` with [run] method = "smc": adaptive tempered SMC (smc/adaptive_smc.hpp) along a
// continuous model's geometric path from a base with an exact sampler, its settings read from
// [smc] (seed and threads from [run]), the estimate, its moves and temperatures recorded in the
// result.
#pragma once

#include <cmath>
#include <cstddef>

#include "logz/config/config.hpp"
#include "logz/paths/geometric_path.hpp"
#include "logz/services/annealing_experiment.hpp"
#include "logz/services/registry.hpp"
#include "logz/services/results.hpp"
#include "logz/services/run_budget.hpp"
#include "logz/smc/adaptive_smc.hpp"
#include "logz/smc/smc_options.hpp"

namespace logz {

// The [smc] keys; their defaults are SmcOptions' own.
const KeyGroup& smc_keys();

// [smc] and [run] seed and threads. `dim`: the particles' dimension (the memory check).
SmcOptions read_smc_options(Config& config, int dim);

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
  check_one_process_run(config, context, RunMethod::smc);
  SmcOptions options = read_smc_options(config, path.dim());
  context.announce(planned_smc_budget(options));
  options.stop = context.stop;
  if (context.progress)
    options.progress = [&context](const SmcStage& stage) {
      context.progress("smc path fraction (per mille)",
                       static_cast<std::size_t>(std::floor(stage.temperature * 1000.0)), 1000);
    };
  record_smc_result(adaptive_smc(path, options), options, result);
}

}  // namespace logz
