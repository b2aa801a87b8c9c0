// A config key, stated once: its name, type, default, allowed range or choices and one line of
// documentation. The code that reads a key reads it through this object (ConfigSection::get_*),
// so the default and the check in force are the ones `logz list` shows, docs/config.md
// documents (tests/docs check it) and errors name. Keys of one [section] that belong together
// (a model's keys, the keys of a kernel or of [run]) form a KeyGroup.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "logz/core/enum_names.hpp"

namespace logz {

enum class KeyType { integer, number, string, boolean, string_list, array };

// "integer", "number", ...: the type's name in `logz list --json`.
const char* to_string(KeyType t);

// The largest value of a scale key (an sd, a mean, a step size, a ridge): its square, a
// variance or an energy, is still a finite double. Every integer and number key has a finite
// maximum (tests/unit/config_key_ranges_test.cpp): a count's is the largest whose run, the other
// keys at their defaults, ends within days on one core, or what memory bounds; only seeds take
// any value up to INT64_MAX.
inline constexpr double kLargestScale = 1e100;

// The key must be given.
struct Required {};
inline constexpr Required required{};
// The default is worked out when the key is read (from other keys, the model, the data); the
// phrase says how, for `logz list` and the docs.
struct Computed {
  std::string phrase;
};

class Key {
 public:
  using Default = std::variant<Required, Computed, std::int64_t, double, std::string, bool,
                               std::vector<std::string>>;

  static Key integer(std::string name, Default fallback, std::int64_t min, std::int64_t max,
                     std::string doc);
  static Key number(std::string name, Default fallback, double min, double max, std::string doc);
  static Key string(std::string name, Default fallback, std::string doc);
  static Key choice(std::string name, Default fallback, std::vector<std::string> choices,
                    std::string doc);
  // A choice among the names of a LOGZ_NAMED_ENUM, read back with ConfigSection::get_enum.
  template <NamedEnum E>
  static Key enumeration(std::string name, E fallback, std::string doc) {
    const auto& names = EnumNames<E>::names;
    return choice(std::move(name), to_string(fallback), {names.begin(), names.end()},
                  std::move(doc));
  }
  static Key boolean(std::string name, Default fallback, std::string doc);
  static Key string_list(std::string name, Default fallback, std::vector<std::string> choices,
                         std::string doc);
  // An array or table that the reader checks itself (a mixture's means, a Gaussian's covariance).
  static Key array(std::string name, Default fallback, std::string doc);

  // The same key with another default or other choices: where a model gives a shared key its
  // own default (an RBM's equilibration_sweeps) or the choices depend on the model.
  Key with_default(Default fallback) const;
  Key with_choices(std::vector<std::string> choices) const;
  // The same number key with a range that depends on other values (a grid above the model's beta).
  Key with_range(double min, double max) const;
  Key with_integer_range(std::int64_t min, std::int64_t max) const;

  const std::string& name() const { return name_; }
  KeyType type() const { return type_; }
  const Default& fallback() const { return fallback_; }
  bool is_required() const { return std::holds_alternative<Required>(fallback_); }
  std::int64_t min_integer() const { return min_int_; }
  std::int64_t max_integer() const { return max_int_; }
  double min_number() const { return min_; }
  double max_number() const { return max_; }
  const std::vector<std::string>& choices() const { return choices_; }
  const std::string& doc() const { return doc_; }
  // The default as TOML would write it ("1000", "\"metropolis\"", "[\"ais\", \"bar\"]"),
  // "required", or the phrase of a computed default.
  std::string default_text() const;
  // "an integer in [1, 32768]", "one of \"a\", \"b\"": what a value must be.
  std::string expectation() const;

 private:
  Key(std::string name, KeyType type, Default fallback, std::string doc)
      : name_(std::move(name)), type_(type), fallback_(std::move(fallback)), doc_(std::move(doc)) {}

  std::string name_;
  KeyType type_;
  Default fallback_;
  std::int64_t min_int_ = INT64_MIN, max_int_ = INT64_MAX;
  double min_ = -1.7976931348623157e308, max_ = 1.7976931348623157e308;
  std::vector<std::string> choices_;
  std::string doc_;
};

// The keys one owner (a model, a kernel, a shared reader) reads from one [section].
struct KeyGroup {
  std::string section;
  std::string owner;  // "ising", "run", "kernel metropolis", ...: for `logz list`
  std::vector<const Key*> keys;

  std::vector<std::string> names() const;
};

}  // namespace logz
