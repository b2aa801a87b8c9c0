// The experiment runners of each model (one file each under src/services/),
// registered by name in experiment_registry().
#pragma once

#include <Eigen/Core>
#include <optional>

#include "logz/models/rbm_parameters.hpp"
#include "logz/services/experiment.hpp"

namespace logz {

ExperimentResult run_ising_experiment(Config& config, const ProgressFn& progress);        // ising_experiment.cpp
ExperimentResult run_potts_experiment(Config& config, const ProgressFn& progress);        // potts_experiment.cpp
ExperimentResult run_gaussian_toy_experiment(Config& config, const ProgressFn& progress); // gaussian_toy_experiment.cpp
ExperimentResult run_rbm_experiment(Config& config, const ProgressFn& progress);          // rbm_experiment.cpp

// Binary data handed to the RBM runner in memory (one example per column, as
// training holds it) instead of [data] train / test files: the training set for
// the base rate and reverse starts, the test set for the test log-likelihood.
// `parameters`, when given, is the RBM itself ([model] weights is then not read).
struct RbmData {
  std::optional<Eigen::MatrixXd> train, test;
  std::optional<RbmParameters> parameters;
};
ExperimentResult run_rbm_experiment_with_data(Config& config, const ProgressFn& progress,
                                              const RbmData& data);

}  // namespace logz
