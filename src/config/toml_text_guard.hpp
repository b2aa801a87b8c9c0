// A guard in front of toml++ 3.3 (Debian 12's), which has undefined behaviour on some
// non-ASCII text (marzer/tomlplusplus#190, #295); found by fuzz/config_fuzzer.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace logz::detail {

// Text toml++ 3.3 (Debian 12's) must not see: classifying some non-ASCII characters (U+00A1 to
// U+0499 among others) as whitespace or not reaches __builtin_unreachable(), undefined
// behaviour (marzer/tomlplusplus#190, #295). It asks outside strings and comments, where TOML
// allows ASCII only anyway, and after a backslash in a """ string. The line of the first such
// character and what TOML (or toml++) expects there; nullopt when the text is safe to parse.
// A UTF-8 byte order mark at the very start is allowed (toml++ skips it).
struct UnsafeText {
  std::size_t line;
  std::string expectation;
};

std::optional<UnsafeText> unsafe_for_toml_parser(std::string_view text);

}  // namespace logz::detail
