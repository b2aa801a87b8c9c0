// Placeholder until the potts model lands: says so instead of pretending to run.
#include "logz/core/error.hpp"
#include "logz/services/model_runners.hpp"

namespace logz {

ExperimentResult run_potts_experiment(Config& config, const ProgressFn&) {
  config.section("model").fail("type", "a model this version of logz can run (\"potts\" is not available yet)");
}

}  // namespace logz
