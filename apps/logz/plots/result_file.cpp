#include "result_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "gnuplot_strings.hpp"
#include "logz/core/error.hpp"

namespace logz::plots {

namespace {

using nlohmann::json;

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr int kMaxDepth = 64;

// A number, or NaN for null (report.cpp writes NaN as null).
double as_number(const ResultFile& r, const std::string& key, const json& v) {
  if (v.is_null()) return kNan;
  // No result has an infinite number (a literal too large for a double is refused on parsing).
  if (!v.is_number() || !std::isfinite(v.get<double>()))
    fail_result(r, key, "a finite number or null");
  return v.get<double>();
}

double number_in(const ResultFile& r, const json& object, const std::string& name,
                 const std::string& key) {
  return object.contains(name) ? as_number(r, key, object[name]) : kNan;
}

}  // namespace

ResultFile read_result_file(const std::string& path) {
  // A folder opens as a stream that fails on its first read: "byte 1: expected JSON".
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    fail_input(one_line(path), "", "a result file (the JSON written by logz run -o), got a folder");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    fail_input(one_line(path), "", "a readable result JSON file (written by logz run --output)");
  std::stringstream text;
  text << in.rdbuf();
  ResultFile r{path, {}};
  int depth = 0;
  try {
    r.json = json::parse(text.str(), [&](int d, json::parse_event_t, json&) {
      depth = std::max(depth, d);
      return true;
    });
  } catch (const json::parse_error& e) {
    fail_result(r, fmt::format("byte {}", e.byte), "JSON (a result written by logz run --output)");
  } catch (const json::out_of_range&) {
    // A literal beyond a double's range (1e400) is refused by the parser (out_of_range.406).
    fail_result(r, "", "JSON with numbers a double can hold, got a number overflowing it");
  }
  // A result is a few levels deep. Far deeper nesting is refused before anything recurses
  // through it (dumping, copying and comparing a json value recurse as deep as it is nested).
  if (depth > kMaxDepth)
    fail_result(r, "", fmt::format("JSON nested at most {} levels deep, got {}", kMaxDepth, depth));
  if (!r.json.is_object() || !r.json.contains("logz_version") || !r.json.contains("estimates") ||
      !r.json["estimates"].is_object())
    fail_result(r, "",
                "a logz result JSON with \"logz_version\" and \"estimates\" (written by logz run "
                "--output)");
  return r;
}

void fail_result(const ResultFile& r, std::string_view key, std::string_view expectation) {
  fail_input(one_line(r.source), one_line(key), expectation);
}

const json* find_key(const json& j, const std::string& dotted) {
  const json* node = &j;
  std::size_t begin = 0;
  while (true) {
    const std::size_t dot = dotted.find('.', begin);
    const std::string part =
        dotted.substr(begin, dot == std::string::npos ? std::string::npos : dot - begin);
    if (!node->is_object() || !node->contains(part)) return nullptr;
    node = &(*node)[part];
    if (dot == std::string::npos) return node;
    begin = dot + 1;
  }
}

std::vector<double> numbers(const ResultFile& r, const std::string& key) {
  const json* v = find_key(r.json, key);
  if (!v) fail_result(r, key, "an array of numbers (a result written by logz run --output)");
  if (!v->is_array()) fail_result(r, key, "an array of numbers");
  std::vector<double> out;
  out.reserve(v->size());
  for (const auto& x : *v) out.push_back(as_number(r, key, x));
  return out;
}

double optional_number(const ResultFile& r, const std::string& key) {
  const json* v = find_key(r.json, key);
  return v ? as_number(r, key, *v) : kNan;
}

std::vector<double> series(const ResultFile& r, const std::string& key, std::size_t num_betas) {
  if (!find_key(r.json, key)) return {};
  auto v = numbers(r, key);
  if (v.size() != num_betas)
    fail_result(r, key, fmt::format("{} values, one per entry of betas", num_betas));
  return v;
}

std::vector<double> acceptance_series(const ResultFile& r, const std::string& key,
                                      std::size_t num_betas) {
  auto v = series(r, key, num_betas);
  for (std::size_t k = 0; k < v.size(); ++k)
    if (v[k] < 0 || v[k] > 1)  // NaN (null) passes: no rate at that temperature
      fail_result(r, key, fmt::format("acceptance rates within [0, 1] (entry {} is {})", k, v[k]));
  return v;
}

std::vector<MethodValue> evidence_estimates(const ResultFile& r) {
  std::vector<MethodValue> out;
  for (const auto& [method, e] : r.json.at("estimates").items()) {
    const std::string key = "estimates." + method;
    if (!e.is_object()) fail_result(r, key, "an object with evidence and std_error");
    out.push_back({method, number_in(r, e, "evidence", key + ".evidence"),
                   number_in(r, e, "std_error", key + ".std_error")});
  }
  return out;
}

std::vector<MethodValue> repetition_estimates(const ResultFile& r) {
  const std::string key = "details.repetitions.methods";
  const json* methods = find_key(r.json, key);
  if (!methods) return {};
  if (!methods->is_array()) fail_result(r, key, "an array of {method, mean, sd}");
  std::vector<MethodValue> out;
  for (std::size_t i = 0; i < methods->size(); ++i) {
    const json& e = (*methods)[i];
    const std::string entry = fmt::format("{}[{}]", key, i);
    if (!e.is_object() || !e.contains("method") || !e["method"].is_string())
      fail_result(r, entry, "an object with a method name, mean and sd");
    out.push_back({e["method"].get<std::string>(), number_in(r, e, "mean", entry + ".mean"),
                   number_in(r, e, "sd", entry + ".sd")});
  }
  return out;
}

bool any_finite(const std::vector<double>& v) {
  return std::any_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
}

}  // namespace logz::plots
