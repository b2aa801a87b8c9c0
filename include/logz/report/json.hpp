// The services' results as JSON: the schema of `logz run --output`, `logz loglik --output`,
// `logz sample --json`, `logz estimate --output` and `logz list --json`, written by the
// command-line tool and (with the same functions) by users' own programs. Non-finite numbers are
// null. See docs/config.md for the fields.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "logz/config/value.hpp"
#include "logz/core/estimate.hpp"
#include "logz/estimators/mbar.hpp"
#include "logz/services/results.hpp"

namespace logz::report {

nlohmann::json to_json(const Value& value);
nlohmann::json to_json(const Record& record);

// {"log_z", "evidence", "std_error", "se_method", "diagnostics": {...}}: log_z is the absolute log
// Z (base_log_z added), evidence the estimator's log(Z / Z_0).
nlohmann::json estimate_to_json(const Estimate& e, double base_log_z);

// The whole result: model, config, reference, estimates, works, details, runtime.
nlohmann::json result_to_json(const RunResult& r);
nlohmann::json loglik_to_json(const LoglikResult& r);
nlohmann::json sample_to_json(const SampleResult& r);

// The registries: {"models": {NAME: {...}}, "kernels": {...}, "estimators": {...}, "schedules":
// [...], "training": {...}}.
nlohmann::json registry_to_json();

// `logz estimate --u-kn --output`: log_z and std_error per state (log Z_k - log Z_0; state 0's
// error is null: it is the reference), converged, iterations, flags.
nlohmann::json mbar_to_json(const MbarResult& r, std::size_t num_samples);

}  // namespace logz::report
