// Reports of results: a table for people (stdout) and JSON for programs.
// Both give the target's absolute log Z (the base's exact log Z_0 added) and
// the evidence log(Z / Z_0) beside it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "logz/core/estimate.hpp"
#include "logz/services/experiment.hpp"

namespace logz {

// {"log_z", "evidence", "std_error", "se_method", "diagnostics": {...}}; NaN as null.
nlohmann::json estimate_to_json(const Estimate& e, double base_log_z);

// The whole result: model, config, reference, estimates, diagnostics, works, runtime.
nlohmann::json result_to_json(const ExperimentResult& r);

// One row per estimate beside the reference; base_log_z = 0 reports evidences.
std::string estimates_table(const std::vector<Estimate>& estimates, double base_log_z,
                            const Reference* reference);

// The header line, the table and the runtime.
std::string result_table(const ExperimentResult& r);

// Works as CSV: direction,path,work.
std::string works_csv(const ExperimentResult& r);

}  // namespace logz
