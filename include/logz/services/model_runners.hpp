// The experiment runners of each model (one file each under src/services/),
// registered by name in experiment_registry().
#pragma once

#include "logz/services/experiment.hpp"

namespace logz {

ExperimentResult run_ising_experiment(Config& config, const ProgressFn& progress);

}  // namespace logz
