#include "logz/config/config_key.hpp"

#include <fmt/format.h>

namespace logz {

const char* to_string(KeyType t) {
  switch (t) {
    case KeyType::integer:
      return "integer";
    case KeyType::number:
      return "number";
    case KeyType::string:
      return "string";
    case KeyType::boolean:
      return "boolean";
    case KeyType::string_list:
      return "string_list";
    case KeyType::array:
      return "array";
  }
  return "?";
}

// Every factory is the plain key plus its range or choices.
Key Key::integer(std::string name, Default fallback, std::int64_t min, std::int64_t max,
                 std::string doc) {
  return Key(std::move(name), KeyType::integer, std::move(fallback), std::move(doc))
      .with_integer_range(min, max);
}
Key Key::number(std::string name, Default fallback, double min, double max, std::string doc) {
  return Key(std::move(name), KeyType::number, std::move(fallback), std::move(doc))
      .with_range(min, max);
}
Key Key::string(std::string name, Default fallback, std::string doc) {
  return Key(std::move(name), KeyType::string, std::move(fallback), std::move(doc));
}
Key Key::choice(std::string name, Default fallback, std::vector<std::string> choices,
                std::string doc) {
  return Key(std::move(name), KeyType::string, std::move(fallback), std::move(doc))
      .with_choices(std::move(choices));
}
Key Key::boolean(std::string name, Default fallback, std::string doc) {
  return Key(std::move(name), KeyType::boolean, std::move(fallback), std::move(doc));
}
Key Key::string_list(std::string name, Default fallback, std::vector<std::string> choices,
                     std::string doc) {
  return Key(std::move(name), KeyType::string_list, std::move(fallback), std::move(doc))
      .with_choices(std::move(choices));
}
Key Key::array(std::string name, Default fallback, std::string doc) {
  return Key(std::move(name), KeyType::array, std::move(fallback), std::move(doc));
}

Key Key::with_default(Default fallback) const {
  Key k = *this;
  k.fallback_ = std::move(fallback);
  return k;
}

Key Key::with_choices(std::vector<std::string> choices) const {
  Key k = *this;
  k.choices_ = std::move(choices);
  return k;
}

Key Key::with_range(double min, double max) const {
  Key k = *this;
  k.min_ = min;
  k.max_ = max;
  return k;
}

Key Key::with_integer_range(std::int64_t min, std::int64_t max) const {
  Key k = *this;
  k.min_int_ = min;
  k.max_int_ = max;
  return k;
}

namespace {

std::string quoted_list(const std::vector<std::string>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", \"" : "\"") + v[i] + "\"";
  return s;
}

}  // namespace

std::string Key::default_text() const {
  struct Text {
    std::string operator()(const Required&) const { return "required"; }
    std::string operator()(const Computed& c) const { return c.phrase; }
    std::string operator()(std::int64_t i) const { return std::to_string(i); }
    std::string operator()(double x) const {
      std::string s = fmt::format("{}", x);
      return s.find_first_of(".en") == std::string::npos ? s + ".0" : s;
    }
    std::string operator()(const std::string& s) const { return "\"" + s + "\""; }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(const std::vector<std::string>& v) const {
      return "[" + quoted_list(v) + "]";
    }
  };
  return std::visit(Text{}, fallback_);
}

std::string Key::expectation() const {
  switch (type_) {
    case KeyType::integer:
      return max_int_ == INT64_MAX ? fmt::format("an integer >= {}", min_int_)
                                   : fmt::format("an integer in [{}, {}]", min_int_, max_int_);
    case KeyType::number:
      return max_ >= 1.7976931348623157e308 ? fmt::format("a finite number >= {}", min_)
                                            : fmt::format("a number in [{}, {}]", min_, max_);
    case KeyType::string:
      return choices_.empty() ? "a string" : "one of " + quoted_list(choices_);
    case KeyType::boolean:
      return "true or false";
    case KeyType::string_list:
      return choices_.empty() ? "a list of strings"
                              : "a list of strings from " + quoted_list(choices_);
    case KeyType::array:
      return "an array";
  }
  return "";
}

std::vector<std::string> KeyGroup::names() const {
  std::vector<std::string> n;
  for (const Key* k : keys) n.push_back(k->name());
  return n;
}

}  // namespace logz
