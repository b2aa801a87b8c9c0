// The experiment runners of each model (one file each under src/services/),
// registered by name in experiment_registry().
#pragma once

#include "logz/services/experiment.hpp"

namespace logz {

ExperimentResult run_ising_experiment(Config& config, const ProgressFn& progress);        // ising_experiment.cpp
ExperimentResult run_potts_experiment(Config& config, const ProgressFn& progress);        // potts_experiment.cpp
ExperimentResult run_gaussian_toy_experiment(Config& config, const ProgressFn& progress); // gaussian_toy_experiment.cpp
ExperimentResult run_rbm_experiment(Config& config, const ProgressFn& progress);          // rbm_experiment.cpp

}  // namespace logz
