#include "logz/services/config.hpp"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <toml++/toml.h>

#include "logz/core/error.hpp"

namespace logz {

namespace {

nlohmann::json to_json(const toml::node& node) {
  if (auto t = node.as_table()) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [k, v] : *t) j[std::string(k.str())] = to_json(v);
    return j;
  }
  if (auto a = node.as_array()) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& v : *a) j.push_back(to_json(v));
    return j;
  }
  if (auto v = node.as_string()) return v->get();
  if (auto v = node.as_integer()) return v->get();
  if (auto v = node.as_floating_point()) return v->get();
  if (auto v = node.as_boolean()) return v->get();
  if (auto v = node.as_date()) return fmt::format("{:04}-{:02}-{:02}", v->get().year, v->get().month, v->get().day);
  return std::string("(unsupported TOML value)");  // times: no key takes them
}

std::string type_name(const nlohmann::json& v) {
  if (v.is_string()) return "the string \"" + v.get<std::string>() + "\"";
  if (v.is_number_integer()) return "the integer " + v.dump();
  if (v.is_number()) return "the number " + v.dump();
  if (v.is_boolean()) return "the boolean " + v.dump();
  if (v.is_array()) return "an array";
  if (v.is_object()) return "a table";
  return "nothing";
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", \"" : "\"") + v[i] + "\"";
  return s;
}

std::string fmt_double(double x) { return fmt::format("{}", x); }

}  // namespace

// ---------------------------------------------------------------- Config

Config Config::from_toml(const std::string& text, const std::string& source) {
  Config c;
  c.source_ = source;
  try {
    const toml::table t = toml::parse(text, source);
    c.raw_ = to_json(t);
  } catch (const toml::parse_error& e) {
    throw InputError(fmt::format("{}:{}: expected valid TOML ({})", source,
                                 e.source().begin.line, std::string(e.description())));
  }
  for (const auto& [k, v] : c.raw_.items())
    if (!v.is_object())
      throw InputError(fmt::format("{}: {}: expected a [section] table, got {}", source, k,
                                   type_name(v)));
  return c;
}

Config Config::from_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: expected a readable config file", path));
  std::ostringstream s;
  s << in.rdbuf();
  return from_toml(s.str(), path);
}

void Config::set(const std::string& assignment) {
  const auto eq = assignment.find('=');
  const auto dot = assignment.find('.');
  if (eq == std::string::npos || dot == std::string::npos || dot > eq || dot == 0 || dot + 1 == eq)
    throw InputError(fmt::format("--set {}: expected section.key=value", assignment));
  const std::string section = assignment.substr(0, dot), key = assignment.substr(dot + 1, eq - dot - 1);
  const std::string text = assignment.substr(eq + 1);
  nlohmann::json value;
  try {
    const toml::table t = toml::parse("v = " + text);
    value = to_json(*t.get("v"));
  } catch (const toml::parse_error&) {
    value = text;  // a bare word: take it as a string
  }
  if (raw_.contains(section) && !raw_[section].is_object())
    throw InputError(fmt::format("--set {}: [{}] is not a table", assignment, section));
  raw_[section][key] = value;
}

void Config::check_sections(std::initializer_list<const char*> known) const {
  for (const auto& [k, v] : raw_.items()) {
    bool ok = false;
    for (const char* n : known) ok |= k == n;
    if (!ok) {
      std::vector<std::string> names(known.begin(), known.end());
      throw InputError(fmt::format("{}: [{}]: expected one of the sections {}", source_, k, join(names)));
    }
  }
}

// ---------------------------------------------------------------- ConfigSection

ConfigSection::ConfigSection(Config& config, std::string name) : config_(config), name_(std::move(name)) {}

const nlohmann::json* ConfigSection::value(const std::string& key) const {
  auto s = config_.raw_.find(name_);
  if (s == config_.raw_.end()) return nullptr;
  auto v = s->find(key);
  return v == s->end() ? nullptr : &*v;
}

bool ConfigSection::has(const std::string& key) const { return value(key) != nullptr; }

void ConfigSection::record(const std::string& key, nlohmann::json v) {
  config_.resolved_[name_][key] = std::move(v);
}

void ConfigSection::fail(const std::string& key, const std::string& expectation) const {
  throw InputError(fmt::format("{}: [{}] {}: expected {}", config_.source_, name_, key, expectation));
}

std::string ConfigSection::get_string(const std::string& key, const std::optional<std::string>& fallback,
                                      const std::vector<std::string>& allowed) {
  const nlohmann::json* v = value(key);
  std::string s;
  if (!v) {
    if (!fallback) fail(key, allowed.empty() ? "a string (this key is required)"
                                             : "one of " + join(allowed) + " (this key is required)");
    s = *fallback;
  } else if (!v->is_string()) {
    fail(key, (allowed.empty() ? std::string("a string") : "one of " + join(allowed)) + ", got " +
                  type_name(*v));
  } else {
    s = v->get<std::string>();
  }
  if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), s) == allowed.end())
    fail(key, "one of " + join(allowed) + ", got \"" + s + "\"");
  record(key, s);
  return s;
}

std::int64_t ConfigSection::get_int(const std::string& key, std::optional<std::int64_t> fallback,
                                    std::int64_t min_value, std::int64_t max_value) {
  const nlohmann::json* v = value(key);
  std::int64_t x = 0;
  const std::string range = max_value == INT64_MAX
                                ? fmt::format("an integer >= {}", min_value)
                                : fmt::format("an integer in [{}, {}]", min_value, max_value);
  if (!v) {
    if (!fallback) fail(key, range + " (this key is required)");
    x = *fallback;
  } else if (v->is_number_integer()) {
    x = v->get<std::int64_t>();
  } else if (v->is_number_float() && std::floor(v->get<double>()) == v->get<double>() &&
             std::abs(v->get<double>()) < 9e15) {
    x = static_cast<std::int64_t>(v->get<double>());  // 1e6 written as a float
  } else {
    fail(key, range + ", got " + type_name(*v));
  }
  if (x < min_value || x > max_value) fail(key, range + ", got " + std::to_string(x));
  record(key, x);
  return x;
}

double ConfigSection::get_double(const std::string& key, std::optional<double> fallback,
                                 double min_value, double max_value) {
  const nlohmann::json* v = value(key);
  double x = 0;
  const std::string range = max_value >= 1.7976931348623157e308
                                ? "a finite number >= " + fmt_double(min_value)
                                : "a number in [" + fmt_double(min_value) + ", " + fmt_double(max_value) + "]";
  if (!v) {
    if (!fallback) fail(key, range + " (this key is required)");
    x = *fallback;
  } else if (v->is_number()) {
    x = v->get<double>();
  } else {
    fail(key, range + ", got " + type_name(*v));
  }
  if (!std::isfinite(x) || x < min_value || x > max_value) fail(key, range + ", got " + fmt_double(x));
  record(key, x);
  return x;
}

bool ConfigSection::get_bool(const std::string& key, std::optional<bool> fallback) {
  const nlohmann::json* v = value(key);
  bool b = false;
  if (!v) {
    if (!fallback) fail(key, "true or false (this key is required)");
    b = *fallback;
  } else if (v->is_boolean()) {
    b = v->get<bool>();
  } else {
    fail(key, "true or false, got " + type_name(*v));
  }
  record(key, b);
  return b;
}

std::vector<std::string> ConfigSection::get_string_list(const std::string& key,
                                                        const std::vector<std::string>& fallback,
                                                        const std::vector<std::string>& allowed) {
  const nlohmann::json* v = value(key);
  std::vector<std::string> out;
  const std::string what = allowed.empty() ? "a list of strings" : "a list of strings from " + join(allowed);
  if (!v) {
    out = fallback;
  } else if (v->is_string()) {
    // A comma-separated string (as --set gives): "ais,bar".
    std::string s = v->get<std::string>(), item;
    std::istringstream in(s);
    while (std::getline(in, item, ','))
      if (!item.empty()) out.push_back(item);
  } else if (v->is_array()) {
    for (const auto& e : *v) {
      if (!e.is_string()) fail(key, what + ", got an element that is " + type_name(e));
      out.push_back(e.get<std::string>());
    }
  } else {
    fail(key, what + ", got " + type_name(*v));
  }
  if (out.empty()) fail(key, what + " with at least one element");
  for (const auto& s : out)
    if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), s) == allowed.end())
      fail(key, what + ", got \"" + s + "\"");
  record(key, out);
  return out;
}

void ConfigSection::check_known(std::initializer_list<const char*> known) const {
  check_known(std::vector<std::string>(known.begin(), known.end()));
}

void ConfigSection::check_known(const std::vector<std::string>& known) const {
  auto s = config_.raw_.find(name_);
  if (s == config_.raw_.end()) return;
  for (const auto& [k, v] : s->items()) {
    if (std::find(known.begin(), known.end(), k) == known.end())
      throw InputError(fmt::format("{}: [{}] {}: unknown key; expected one of {}", config_.source_,
                                   name_, k, join(known)));
  }
}

std::string resolve_config_path(const Config& config, const std::string& file) {
  std::filesystem::path p = file;
  if (p.is_relative()) p = std::filesystem::path(config.source()).parent_path() / p;
  return p.string();
}

}  // namespace logz
