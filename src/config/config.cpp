#include "logz/config/config.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "config/toml_text_guard.hpp"
#include "logz/core/error.hpp"
#include "logz/io/memory_archive.hpp"

namespace logz {

namespace {

Value to_value(const toml::node& node) {
  if (auto t = node.as_table()) {
    Record r;
    for (const auto& [k, v] : *t) r.set(std::string(k.str()), to_value(v));
    return r;
  }
  if (auto a = node.as_array()) {
    Value::Array out;
    for (const auto& v : *a) out.push_back(to_value(v));
    return out;
  }
  if (auto v = node.as_string()) return v->get();
  if (auto v = node.as_integer()) return v->get();
  if (auto v = node.as_floating_point()) return v->get();
  if (auto v = node.as_boolean()) return v->get();
  if (auto v = node.as_date())
    return fmt::format("{:04}-{:02}-{:02}", v->get().year, v->get().month, v->get().day);
  return std::string("(unsupported TOML value)");  // times: no key takes them
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", \"" : "\"") + v[i] + "\"";
  return s;
}

std::string fmt_double(double x) { return fmt::format("{}", x); }

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

}  // namespace

// ---------------------------------------------------------------- Config

Config Config::from_toml(const std::string& text, const std::string& source) {
  Config c;
  c.source_ = source;
  if (const auto unsafe = detail::unsafe_for_toml_parser(text))
    throw InputError(
        fmt::format("{}:{}: expected valid TOML ({})", source, unsafe->line, unsafe->expectation));
  try {
    const toml::table t = toml::parse(text, source);
    c.raw_ = to_value(t).as_record();
  } catch (const toml::parse_error& e) {
    throw InputError(fmt::format("{}:{}: expected valid TOML ({})", source, e.source().begin.line,
                                 std::string(e.description())));
  }
  return from_record(std::move(c.raw_), source);
}

Config Config::from_record(Record sections, const std::string& source) {
  Config c;
  c.source_ = source;
  for (const auto& [k, v] : sections)
    if (!v.is_record())
      throw InputError(
          fmt::format("{}: {}: expected a [section] table, got {}", source, k, v.describe()));
  c.raw_ = std::move(sections);
  return c;
}

Config Config::from_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in || std::filesystem::is_directory(path))
    throw InputError(fmt::format("{}: expected a readable config file", path));
  std::ostringstream s;
  s << in.rdbuf();
  return from_toml(s.str(), path);
}

void Config::set(const std::string& assignment) {
  const auto eq = assignment.find('=');
  const auto dot = assignment.find('.');
  if (eq == std::string::npos || dot == std::string::npos || dot > eq || dot == 0 || dot + 1 == eq)
    throw InputError(fmt::format("--set {}: expected section.key=value", assignment));
  // Spaces around the names and the value, as in a TOML line ("model.size = 5"), are not part
  // of them.
  const std::string section = trim(assignment.substr(0, dot)),
                    key = trim(assignment.substr(dot + 1, eq - dot - 1));
  const std::string text = trim(assignment.substr(eq + 1));
  if (section.empty() || key.empty())
    throw InputError(fmt::format("--set {}: expected section.key=value", assignment));
  Value value = text;  // a bare word (text that does not parse as TOML): taken as a string
  const std::string toml_text = "v = " + text;
  if (!detail::unsafe_for_toml_parser(toml_text)) {
    try {
      const toml::table t = toml::parse(toml_text);
      value = to_value(*t.get("v"));
    } catch (const toml::parse_error&) {
    }
  }
  if (raw_.contains(section) && !raw_[section].is_record())
    throw InputError(fmt::format("--set {}: [{}] is not a table", assignment, section));
  set(section, key, std::move(value));
  overrides_[section + "." + key] = "--set " + assignment;
}

const std::string& Config::source_of(const std::string& section, const std::string& key) const {
  const auto it = overrides_.find(section + "." + key);
  return it == overrides_.end() ? source_ : it->second;
}

void Config::set(const std::string& section, const std::string& key, Value value) {
  raw_[section][key] = std::move(value);
  overrides_.erase(section + "." + key);
}

void Config::check_sections(std::initializer_list<const char*> known) const {
  check_sections(std::vector<std::string>(known.begin(), known.end()));
}

void Config::check_sections(const std::vector<std::string>& known) const {
  for (const auto& [k, v] : raw_)
    if (std::find(known.begin(), known.end(), k) == known.end())
      throw InputError(fmt::format("{}: [{}]: expected one of the sections {}",
                                   v.is_record() && !v.as_record().empty()
                                       ? source_of(k, v.as_record().begin()->first)
                                       : source_,
                                   k, join(known)));
}

// ---------------------------------------------------------------- ConfigSection

ConfigSection::ConfigSection(Config& config, std::string name)
    : config_(config), name_(std::move(name)) {}

const Value* ConfigSection::value(const std::string& key) const {
  const Value* s = config_.raw_.find(name_);
  return s && s->is_record() ? s->as_record().find(key) : nullptr;
}

bool ConfigSection::has(const std::string& key) const { return value(key) != nullptr; }

void ConfigSection::record(const std::string& key, Value v) {
  config_.resolved_[name_][key] = std::move(v);
}

void ConfigSection::fail(const std::string& key, const std::string& expectation) const {
  throw InputError(fmt::format("{}: [{}] {}: expected {}", config_.source_of(name_, key), name_,
                               key, expectation));
}

std::string ConfigSection::get_string(const std::string& key,
                                      const std::optional<std::string>& fallback,
                                      const std::vector<std::string>& allowed) {
  const Value* v = value(key);
  std::string s;
  if (!v) {
    if (!fallback)
      fail(key, allowed.empty() ? "a string (this key is required)"
                                : "one of " + join(allowed) + " (this key is required)");
    s = *fallback;
  } else if (!v->is_string()) {
    fail(key, (allowed.empty() ? std::string("a string") : "one of " + join(allowed)) + ", got " +
                  v->describe());
  } else {
    s = v->as_string();
  }
  if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), s) == allowed.end())
    fail(key, "one of " + join(allowed) + ", got \"" + s + "\"");
  record(key, s);
  return s;
}

std::int64_t ConfigSection::get_int(const std::string& key, std::optional<std::int64_t> fallback,
                                    std::int64_t min_value, std::int64_t max_value) {
  const Value* v = value(key);
  std::int64_t x = 0;
  const std::string range = max_value == INT64_MAX
                                ? fmt::format("an integer >= {}", min_value)
                                : fmt::format("an integer in [{}, {}]", min_value, max_value);
  if (!v) {
    if (!fallback) fail(key, range + " (this key is required)");
    x = *fallback;
  } else if (v->is_integer()) {
    x = v->as_integer();
  } else if (v->is_double() && std::floor(v->as_double()) == v->as_double() &&
             std::abs(v->as_double()) < 9e15) {
    x = static_cast<std::int64_t>(v->as_double());  // 1e6 written as a float
  } else {
    fail(key, range + ", got " + v->describe());
  }
  if (x < min_value || x > max_value) fail(key, range + ", got " + std::to_string(x));
  record(key, x);
  return x;
}

double ConfigSection::get_double(const std::string& key, std::optional<double> fallback,
                                 double min_value, double max_value) {
  const Value* v = value(key);
  double x = 0;
  const std::string range =
      max_value >= 1.7976931348623157e308
          ? "a finite number >= " + fmt_double(min_value)
          : "a number in [" + fmt_double(min_value) + ", " + fmt_double(max_value) + "]";
  if (!v) {
    if (!fallback) fail(key, range + " (this key is required)");
    x = *fallback;
  } else if (v->is_number()) {
    x = v->as_double();
  } else {
    fail(key, range + ", got " + v->describe());
  }
  if (!std::isfinite(x) || x < min_value || x > max_value)
    fail(key, range + ", got " + fmt_double(x));
  record(key, x);
  return x;
}

bool ConfigSection::get_bool(const std::string& key, std::optional<bool> fallback) {
  const Value* v = value(key);
  bool b = false;
  if (!v) {
    if (!fallback) fail(key, "true or false (this key is required)");
    b = *fallback;
  } else if (v->is_bool()) {
    b = v->as_bool();
  } else {
    fail(key, "true or false, got " + v->describe());
  }
  record(key, b);
  return b;
}

std::vector<std::string> ConfigSection::get_string_list(const std::string& key,
                                                        const std::vector<std::string>& fallback,
                                                        const std::vector<std::string>& allowed) {
  const Value* v = value(key);
  std::vector<std::string> out;
  const std::string what =
      allowed.empty() ? "a list of strings" : "a list of strings from " + join(allowed);
  if (!v) {
    out = fallback;
  } else if (v->is_string()) {
    // A comma-separated string (as --set gives): "ais,bar".
    std::string s = v->as_string(), item;
    std::istringstream in(s);
    while (std::getline(in, item, ','))
      if (!item.empty()) out.push_back(item);
  } else if (v->is_array()) {
    for (const auto& e : v->as_array()) {
      if (!e.is_string()) fail(key, what + ", got an element that is " + e.describe());
      out.push_back(e.as_string());
    }
  } else {
    fail(key, what + ", got " + v->describe());
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
  const Value* s = config_.raw_.find(name_);
  if (!s || !s->is_record()) return;
  for (const auto& [k, v] : s->as_record()) {
    if (std::find(known.begin(), known.end(), k) == known.end())
      throw InputError(fmt::format("{}: [{}] {}: unknown key; expected one of {}",
                                   config_.source_of(name_, k), name_, k, join(known)));
  }
}

// ---------------------------------------------------------------- reads through a Key

namespace {

template <class T>
std::optional<T> fallback_of(const Key& key) {
  if (key.is_required()) return std::nullopt;
  if (const auto* v = std::get_if<T>(&key.fallback())) return *v;
  throw std::logic_error("config key " + key.name() +
                         ": read without its computed default, or with a default of another type");
}

void check_type(const Key& key, KeyType type) {
  if (key.type() != type)
    throw std::logic_error("config key " + key.name() + " read as " + to_string(type));
}

}  // namespace

std::int64_t ConfigSection::get_int(const Key& key) {
  check_type(key, KeyType::integer);
  return get_int(key.name(), fallback_of<std::int64_t>(key), key.min_integer(), key.max_integer());
}

std::int64_t ConfigSection::get_int(const Key& key, std::int64_t computed_default) {
  check_type(key, KeyType::integer);
  return get_int(key.name(), computed_default, key.min_integer(), key.max_integer());
}

double ConfigSection::get_double(const Key& key) {
  check_type(key, KeyType::number);
  return get_double(key.name(), fallback_of<double>(key), key.min_number(), key.max_number());
}

double ConfigSection::get_double(const Key& key, double computed_default) {
  check_type(key, KeyType::number);
  return get_double(key.name(), computed_default, key.min_number(), key.max_number());
}

std::string ConfigSection::get_string(const Key& key) {
  check_type(key, KeyType::string);
  return get_string(key.name(), fallback_of<std::string>(key), key.choices());
}

std::string ConfigSection::get_string(const Key& key, const std::string& computed_default) {
  check_type(key, KeyType::string);
  return get_string(key.name(), computed_default, key.choices());
}

bool ConfigSection::get_bool(const Key& key) {
  check_type(key, KeyType::boolean);
  return get_bool(key.name(), fallback_of<bool>(key));
}

std::vector<std::string> ConfigSection::get_string_list(const Key& key) {
  check_type(key, KeyType::string_list);
  return get_string_list(
      key.name(), fallback_of<std::vector<std::string>>(key).value_or(std::vector<std::string>{}),
      key.choices());
}

std::vector<std::string> ConfigSection::get_string_list(
    const Key& key, const std::vector<std::string>& computed_default) {
  check_type(key, KeyType::string_list);
  return get_string_list(key.name(), computed_default, key.choices());
}

const Value& ConfigSection::get_value(const Key& key) {
  check_type(key, KeyType::array);
  static const Value null;
  const Value* v = value(key.name());
  if (!v) {
    if (key.is_required()) fail(key, key.expectation() + " (this key is required)");
    return null;
  }
  record(key.name(), *v);
  return *v;
}

void ConfigSection::check_known(std::initializer_list<const KeyGroup*> groups) const {
  check_known(std::vector<const KeyGroup*>(groups.begin(), groups.end()));
}

void ConfigSection::check_known(const std::vector<const KeyGroup*>& groups) const {
  std::vector<std::string> known;
  for (const KeyGroup* g : groups)
    for (const Key* k : g->keys)
      if (std::find(known.begin(), known.end(), k->name()) == known.end())
        known.push_back(k->name());
  check_known(known);
}

std::string resolve_config_path(const Config& config, const std::string& file) {
  if (io::is_memory_path(file)) return file;  // arrays a front end holds (io/memory_archive.hpp)
  std::filesystem::path p = file;
  if (p.is_relative()) p = std::filesystem::path(config.source()).parent_path() / p;
  if (FilesRead* files = config.files_read()) files->add(p.string());
  return p.string();
}

}  // namespace logz
