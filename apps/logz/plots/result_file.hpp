// A result JSON of `logz run --output` as the plots read it. Every value drawn is checked as it
// is read: a number or null (NaN, as report.cpp writes it) where numbers are expected, and
// acceptance rates within [0, 1]; anything else is an InputError "FILE: KEY: expected ..." on
// one line, whatever the file and its keys are named.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace logz::plots {

// A parsed result file; `source` (the file name) is what errors name.
struct ResultFile {
  std::string source;
  nlohmann::json json;
};

// Reads and parses a result JSON; an InputError naming the file when it is missing, is not
// JSON, or is not a logz result (no "logz_version"/"estimates").
ResultFile read_result_file(const std::string& path);

// Throws the InputError "FILE: KEY: expected EXPECTATION", shown on one line.
[[noreturn]] void fail_result(const ResultFile& r, std::string_view key,
                              std::string_view expectation);

// The value at "a.b.c", or null when a part is missing.
const nlohmann::json* find_key(const nlohmann::json& j, const std::string& dotted);

// The array of numbers at `key`, which must be there.
std::vector<double> numbers(const ResultFile& r, const std::string& key);

// The number at `key`: NaN when absent or null.
double optional_number(const ResultFile& r, const std::string& key);

// A per-temperature series at `key`: one value per entry of betas, or none when absent.
std::vector<double> series(const ResultFile& r, const std::string& key, std::size_t num_betas);

// forward.acceptance or reverse.acceptance: a series of rates within [0, 1].
std::vector<double> acceptance_series(const ResultFile& r, const std::string& key,
                                      std::size_t num_betas);

// One estimator's number and its error bar (NaN when null or absent).
struct MethodValue {
  std::string method;
  double value, error;
};

// The evidence and std_error of every entry of "estimates".
std::vector<MethodValue> evidence_estimates(const ResultFile& r);

// Of `[run] repetitions` results: each method's mean and sd over the repetitions
// ("details.repetitions.methods"); none when the result has no repetitions.
std::vector<MethodValue> repetition_estimates(const ResultFile& r);

bool any_finite(const std::vector<double>& v);

}  // namespace logz::plots
