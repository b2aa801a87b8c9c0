// The services' results as text for people: the tables the command-line tool prints.
#pragma once

#include <string>
#include <vector>

#include "logz/core/estimate.hpp"
#include "logz/estimators/mbar.hpp"
#include "logz/services/results.hpp"

namespace logz::report {

// One row per estimate beside the reference; base_log_z = 0 reports evidences.
std::string estimates_table(const std::vector<Estimate>& estimates, double base_log_z,
                            const Reference* reference);

// The header line, the table (and the repetitions' summary) and the runtime.
std::string result_table(const RunResult& r);
std::string loglik_table(const LoglikResult& r);
std::string sample_table(const SampleResult& r);

// Works as CSV: direction,path,work.
std::string works_csv(const RunResult& r);

// The registries, for `logz list`.
std::string registry_table();

// x with `precision` decimals, or "nan".
std::string fixed(double x, int precision);

// `logz estimate --u-kn`: log Z_k - log Z_0 and its error per state, and how the solve ended.
std::string mbar_table(const MbarResult& r, std::size_t num_states, std::size_t num_samples);

}  // namespace logz::report
