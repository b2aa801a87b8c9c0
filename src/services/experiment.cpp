#include "logz/services/experiment.hpp"

#include <chrono>

#include "logz/services/continuous_runners.hpp"
#include "logz/services/mixture_experiment.hpp"
#include "logz/services/model_runners.hpp"
#include "logz/services/repetitions.hpp"

namespace logz {

const std::map<std::string, ExperimentRunner>& experiment_registry() {
  static const std::map<std::string, ExperimentRunner> registry = {
      {"ising", run_ising_experiment},
      {"potts", run_potts_experiment},
      {"gaussian_toy", run_gaussian_toy_experiment},
      {"rbm", run_rbm_experiment},
      {"poe", run_poe_experiment},
      {"linear_generative", run_linear_generative_experiment},
      {"bilinear_generative", run_bilinear_generative_experiment},
      {"mcrbm", run_mcrbm_experiment},
      {"gaussian_mixture", run_gaussian_mixture_experiment},
  };
  return registry;
}

ExperimentResult run_experiment(Config& config, const ProgressFn& progress) {
  config.check_sections({"model", "schedule", "kernel", "run", "estimators", "data", "tempering", "base",
                        "integration"});
  std::vector<std::string> names;
  for (const auto& [name, runner] : experiment_registry()) names.push_back(name);
  const std::string type = config.section("model").get_string("type", std::nullopt, names);
  const auto repetitions = static_cast<std::size_t>(config.section("run").get_int("repetitions", 1, 1, 10000000));
  const auto& runner = experiment_registry().at(type);
  const auto start = std::chrono::steady_clock::now();
  ExperimentResult result =
      repetitions == 1 ? runner(config, progress) : run_repetitions(config, repetitions, runner, progress);
  result.runtime_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.config = config.resolved();
  return result;
}

}  // namespace logz
