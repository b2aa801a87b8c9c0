// One experiment run from a config: the model's registered runner builds the
// path, kernel and schedule, anneals, and hands the works to the estimators.
// The result holds everything the report (table, JSON, CSV) needs.
#pragma once

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "logz/anneal/works.hpp"
#include "logz/core/estimate.hpp"
#include "logz/services/config.hpp"

namespace logz {

struct Reference {
  double log_z = kNaN;  // the target's absolute log Z
  std::string source;   // "kaufman", "enumeration", ...
};

struct ExperimentResult {
  nlohmann::json model;               // a description of the model
  double base_log_z = kNaN;           // exact log Z_0 of the base
  std::optional<Reference> reference; // exact answer, when known
  std::optional<Works> forward, reverse;
  std::vector<Estimate> estimates;    // log_z here is the evidence log(Z / Z_0)
  std::vector<double> equilibrium_energy;  // exact mean energy per temperature, when known
  nlohmann::json kernel;              // kernel settings and diagnostics
  nlohmann::json details = nlohmann::json::object();  // method-specific outputs (e.g. tempering ladders)
  double runtime_s = 0.0;
  nlohmann::json config;              // the resolved config
};

// Called with (stage, chunks done, chunks in all) from worker threads.
using ProgressFn = std::function<void(const std::string&, std::size_t, std::size_t)>;

using ExperimentRunner = std::function<ExperimentResult(Config&, const ProgressFn&)>;

// The models `logz run` knows: [model] type -> runner.
const std::map<std::string, ExperimentRunner>& experiment_registry();

// Reads [model] type, dispatches, fills runtime and the resolved config.
ExperimentResult run_experiment(Config& config, const ProgressFn& progress = {});

}  // namespace logz
