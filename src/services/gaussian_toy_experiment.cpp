// Placeholder until the gaussian_toy model lands: says so instead of pretending to run.
#include "logz/core/error.hpp"
#include "logz/services/model_runners.hpp"

namespace logz {

ExperimentResult run_gaussian_toy_experiment(Config& config, const ProgressFn&) {
  config.section("model").fail("type", "a model this version of logz can run (\"gaussian_toy\" is not available yet)");
}

}  // namespace logz
