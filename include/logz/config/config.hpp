// Experiment configuration: a TOML file (with --set section.key=value overrides), or a record
// built by a front end, read into typed values with defaults, checked on access. Keys are read
// through their Key (config/config_key.hpp), which states the default and the check once.
// Every error is one line naming the source, the [section] key and what was expected. The
// values actually used, defaults included, are kept as the resolved config.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "logz/config/config_key.hpp"
#include "logz/config/files_read.hpp"
#include "logz/config/value.hpp"

namespace logz {

class Config;

// Typed, validated access to one [section] of a Config.
class ConfigSection {
 public:
  ConfigSection(Config& config, std::string name);

  const std::string& name() const { return name_; }
  bool has(const std::string& key) const;
  bool has(const Key& key) const { return has(key.name()); }

  // Reads a key with the default, range and choices it states. A key whose default is
  // Computed is read with the value worked out by the caller.
  std::int64_t get_int(const Key& key);
  std::int64_t get_int(const Key& key, std::int64_t computed_default);
  double get_double(const Key& key);
  double get_double(const Key& key, double computed_default);
  std::string get_string(const Key& key);
  std::string get_string(const Key& key, const std::string& computed_default);
  bool get_bool(const Key& key);
  template <NamedEnum E>
  E get_enum(const Key& key) {
    return parse_enum<E>(get_string(key));
  }
  template <NamedEnum E>
  E get_enum(const Key& key, E computed_default) {
    return parse_enum<E>(get_string(key, std::string(to_string(computed_default))));
  }
  std::vector<std::string> get_string_list(const Key& key);
  std::vector<std::string> get_string_list(const Key& key,
                                           const std::vector<std::string>& computed_default);
  // An array key as given (checked by the caller, who reports through fail()); null if absent.
  const Value& get_value(const Key& key);

  // The same without a Key, for one-off reads (tests, tools).
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

  // Errors out on any key of the section that no group names.
  void check_known(std::initializer_list<const KeyGroup*> groups) const;
  void check_known(const std::vector<const KeyGroup*>& groups) const;
  void check_known(std::initializer_list<const char*> known) const;
  void check_known(const std::vector<std::string>& known) const;
  // An error about `key` of this section: "<source>: [section] key: expected ...".
  [[noreturn]] void fail(const std::string& key, const std::string& expectation) const;
  [[noreturn]] void fail(const Key& key, const std::string& expectation) const {
    fail(key.name(), expectation);
  }

 private:
  const Value* value(const std::string& key) const;
  void record(const std::string& key, Value v);

  Config& config_;
  std::string name_;
};

class Config {
 public:
  // Parses TOML text; `source` names it in errors (a file name).
  static Config from_toml(const std::string& text, const std::string& source);
  static Config from_file(const std::string& path);
  // A config built by a front end: a record of [section] records.
  static Config from_record(Record sections, const std::string& source);

  // Applies "section.key=value"; value is TOML ("3", "2.5", "\"x\"", "[\"a\",\"b\"]",
  // true) or, if it does not parse as TOML, taken as a plain string.
  void set(const std::string& assignment);
  // Sets one key to a value (front ends that already hold typed values).
  void set(const std::string& section, const std::string& key, Value value);

  ConfigSection section(const std::string& name) { return ConfigSection(*this, name); }
  // Errors out on any [section] that is not in `known`.
  void check_sections(std::initializer_list<const char*> known) const;
  void check_sections(const std::vector<std::string>& known) const;

  const std::string& source() const { return source_; }
  // What errors about [section] key name: "--set section.key=value" for a key set by
  // set(assignment), else source().
  const std::string& source_of(const std::string& section, const std::string& key) const;
  const Record& raw() const { return raw_; }
  // Where the files this config names are recorded as they are resolved (a checkpointed run's
  // FilesRead), or nullptr: nowhere.
  void record_files_in(std::shared_ptr<FilesRead> files) { files_read_ = std::move(files); }
  FilesRead* files_read() const { return files_read_.get(); }
  // The values read so far, defaults filled in.
  const Record& resolved() const { return resolved_; }

 private:
  friend class ConfigSection;
  std::string source_;
  Record raw_;
  Record resolved_;
  std::map<std::string, std::string> overrides_;  // "section.key" -> "--set section.key=value"
  std::shared_ptr<FilesRead> files_read_;
};

// A file named in a config: relative paths are taken from the config file's folder; a
// "memory:" path (arrays a front end holds, io/memory_archive.hpp) is kept as it is. The file is
// fingerprinted in the config's files_read(), if it has one.
std::string resolve_config_path(const Config& config, const std::string& file);

}  // namespace logz
