// The pickle states of logz.Estimate, logz.Result and logz.MbarResult: every field of the C++
// result, exactly (NaN, infinities and -0.0 too, which the report's JSON writes as null), as
// MessagePack bytes of {"format": "logz.Result 1", "value": ...}. A state is read back by the
// same version of logz: one of another format, or corrupted, is an InputError naming the class.
// Pickles carry results between processes (joblib, multiprocessing); to_json() is for keeping.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "logz/core/estimate.hpp"
#include "logz/estimators/mbar.hpp"
#include "logz/services/results.hpp"

namespace logz::python {

// An Estimate with the base log Z0 a run's Estimate adds (0 for estimates on works).
std::string estimate_state(const Estimate& e, double base_log_z);
std::pair<Estimate, double> estimate_from_state(std::string_view state);

std::string run_result_state(const RunResult& r);
RunResult run_result_from_state(std::string_view state);

// An MbarResult with the flags logz.mbar gave it.
std::string mbar_result_state(const MbarResult& r, const std::vector<std::string>& flags);
std::pair<MbarResult, std::vector<std::string>> mbar_result_from_state(std::string_view state);

}  // namespace logz::python
