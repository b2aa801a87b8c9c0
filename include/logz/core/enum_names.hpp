// Enumerations that configs and reports name. LOGZ_NAMED_ENUM states each enumerator once and
// makes its name the enumerator's spelling, so to_string and parse_enum cannot drift from the
// enumeration:
//
//   LOGZ_NAMED_ENUM(PriorType, gaussian, laplace);   // at namespace logz scope
//   to_string(PriorType::laplace) == "laplace";  parse_enum<PriorType>("gaussian")
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

#include "logz/core/error.hpp"

namespace logz {

template <class E>
struct EnumNames;  // specialised by LOGZ_NAMED_ENUM

template <class E>
concept NamedEnum = requires {
  EnumNames<E>::names;
};

namespace detail {

constexpr std::size_t count_enum_names(std::string_view list) {
  std::size_t n = 1;
  for (char c : list) n += c == ',';
  return n;
}

// "a, b,c" -> {"a", "b", "c"}: the stringised enumerator list, split at commas and trimmed.
template <std::size_t N>
constexpr std::array<std::string_view, N> split_enum_names(std::string_view list) {
  std::array<std::string_view, N> names{};
  for (std::size_t i = 0; i < N; ++i) {
    const std::size_t comma = list.find(',');
    std::string_view name = list.substr(0, comma);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    names[i] = name;
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
  }
  return names;
}

}  // namespace detail

template <NamedEnum E>
std::string to_string(E value) {
  return std::string(EnumNames<E>::names[static_cast<std::size_t>(value)]);
}

// The enumerator called `name`; InvalidArgument listing the names otherwise, said of
// `function`'s `argument`.
template <NamedEnum E>
E parse_enum(std::string_view name, std::string_view function = "logz::parse_enum",
             std::string_view argument = "name") {
  const auto& names = EnumNames<E>::names;
  std::string listed;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (name == names[i]) return static_cast<E>(i);
    listed += i == 0 ? "\"" : i + 1 == names.size() ? " or \"" : ", \"";
    listed += std::string(names[i]) + "\"";
  }
  fail_argument(function, argument, listed + ", got \"" + std::string(name) + "\"");
}

}  // namespace logz

// Declares `enum class Name { ... }` and its names; use at namespace logz scope.
#define LOGZ_NAMED_ENUM(Name, ...)                                                      \
  enum class Name { __VA_ARGS__ };                                                      \
  template <>                                                                           \
  struct EnumNames<Name> {                                                              \
    static constexpr auto names =                                                       \
        detail::split_enum_names<detail::count_enum_names(#__VA_ARGS__)>(#__VA_ARGS__); \
  }
