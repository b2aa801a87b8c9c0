// Experiment configuration: a TOML file (with --set section.key=value
// overrides) read into typed values with defaults, checked on access. Every
// error is one line naming the file, the [section] key and what was expected.
// The values actually used, defaults included, are kept as the resolved config.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace logz {

class Config;

// Typed, validated access to one [section] of a Config.
class ConfigSection {
 public:
  ConfigSection(Config& config, std::string name);

  bool has(const std::string& key) const;
  std::string get_string(const std::string& key, const std::optional<std::string>& fallback,
                         const std::vector<std::string>& allowed = {});
  std::int64_t get_int(const std::string& key, std::optional<std::int64_t> fallback,
                       std::int64_t min_value, std::int64_t max_value = INT64_MAX);
  double get_double(const std::string& key, std::optional<double> fallback, double min_value,
                    double max_value = 1.7976931348623157e308);
  bool get_bool(const std::string& key, std::optional<bool> fallback);
  std::vector<std::string> get_string_list(const std::string& key,
                                           const std::vector<std::string>& fallback,
                                           const std::vector<std::string>& allowed = {});
  // Errors out on any key of the section that is not in `known`.
  void check_known(std::initializer_list<const char*> known) const;
  void check_known(const std::vector<std::string>& known) const;
  // An error about `key` of this section: "<source>: [section] key: expected ...".
  [[noreturn]] void fail(const std::string& key, const std::string& expectation) const;

 private:
  const nlohmann::json* value(const std::string& key) const;
  void record(const std::string& key, nlohmann::json v);

  Config& config_;
  std::string name_;
};

class Config {
 public:
  // Parses TOML text; `source` names it in errors (a file name).
  static Config from_toml(const std::string& text, const std::string& source);
  static Config from_file(const std::string& path);

  // Applies "section.key=value"; value is TOML ("3", "2.5", "\"x\"", "[\"a\",\"b\"]",
  // true) or, if it does not parse as TOML, taken as a plain string.
  void set(const std::string& assignment);

  ConfigSection section(const std::string& name) { return ConfigSection(*this, name); }
  // Errors out on any [section] that is not in `known`.
  void check_sections(std::initializer_list<const char*> known) const;

  const std::string& source() const { return source_; }
  const nlohmann::json& raw() const { return raw_; }
  // The values read so far, defaults filled in.
  const nlohmann::json& resolved() const { return resolved_; }

 private:
  friend class ConfigSection;
  std::string source_;
  nlohmann::json raw_ = nlohmann::json::object();
  nlohmann::json resolved_ = nlohmann::json::object();
};

// A file named in a config: relative paths are taken from the config file's folder.
std::string resolve_config_path(const Config& config, const std::string& file);

}  // namespace logz
