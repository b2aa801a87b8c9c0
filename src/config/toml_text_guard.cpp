#include "config/toml_text_guard.hpp"

#include <algorithm>
#include <vector>

namespace logz::detail {

std::optional<UnsafeText> unsafe_for_toml_parser(std::string_view text) {
  enum class In {
    kOutside,
    kBareValue,
    kComment,
    kBasic,
    kMultiLineBasic,
    kLiteral,
    kMultiLineLiteral
  };
  const auto non_ascii = [&](std::size_t i) {
    return i < text.size() && static_cast<unsigned char>(text[i]) >= 0x80;
  };
  const auto unsafe = [&](std::size_t i, std::string expectation) {
    return UnsafeText{
        static_cast<std::size_t>(
            1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(i), '\n')),
        std::move(expectation)};
  };
  const auto run_of = [&](std::size_t i, char quote) {
    std::size_t n = 0;
    while (i + n < text.size() && text[i + n] == quote) ++n;
    return n;
  };
  // toml++ reads a quote as a string only where a key or a value starts (after a '.' only in a
  // key), and a bare value (a number, a date, true) up to whitespace, ']', '}', ',' or '#',
  // classifying every character on the way: 0'x' and 0["x"] are bare values.
  In in = In::kOutside;
  std::vector<char> brackets;  // the arrays '[' and inline tables '{' open in a value
  bool in_key = true;
  char last = '\n';  // the last character outside strings, spaces and tabs aside
  // A UTF-8 byte order mark (which Windows editors write) opens the text: toml++ skips it, as
  // the schedule files' reader does. Anywhere else it is non-ASCII text like any other.
  const std::size_t start = text.starts_with("\xEF\xBB\xBF") ? 3 : 0;
  for (std::size_t i = start; i < text.size();) {
    const char c = text[i];
    switch (in) {
      case In::kOutside: {
        if (non_ascii(i)) return unsafe(i, "non-ASCII text only inside strings and comments");
        const bool in_array = !brackets.empty() && brackets.back() == '[';
        const bool starts = in_key ? std::string_view("\n[,{.").find(last) != std::string_view::npos
                                   : std::string_view("=[,").find(last) != std::string_view::npos ||
                                         (last == '\n' && in_array);
        if ((c == '"' || c == '\'') && starts) {
          const bool multi_line = run_of(i, c) >= 3;
          in = c == '"' ? (multi_line ? In::kMultiLineBasic : In::kBasic)
                        : (multi_line ? In::kMultiLineLiteral : In::kLiteral);
          i += multi_line ? 3 : 1;
          continue;
        }
        if (!in_key && starts &&
            std::string_view("[{]}#, \t\r\n").find(c) == std::string_view::npos) {
          in = In::kBareValue;
          continue;
        }
        if (c == '#') in = In::kComment;
        if (c == '\n' && brackets.empty()) in_key = true;
        if (c == '=') in_key = false;
        if (c == '[' && !in_key) brackets.push_back('[');  // an array; in a key, a table header
        if (c == ']' && in_array && !in_key) brackets.pop_back();
        if (c == '{') {
          brackets.push_back('{');
          in_key = true;
        }
        if (c == '}' && !brackets.empty() && brackets.back() == '{') {
          brackets.pop_back();
          in_key = false;
        }
        if (c == ',') in_key = !brackets.empty() && brackets.back() == '{';
        if (c != ' ' && c != '\t' && c != '#') last = c;
        break;
      }
      case In::kBareValue:
        if (non_ascii(i)) return unsafe(i, "non-ASCII text only inside strings and comments");
        if (std::string_view("]},# \t\r\n").find(c) != std::string_view::npos) {
          in = In::kOutside;
          last = 'v';  // a value ended
          continue;
        }
        break;
      case In::kComment:
        if (c == '\n') {
          in = In::kOutside;
          continue;
        }
        break;
      case In::kBasic:
        if (c == '\\' && i + 1 < text.size() && text[i + 1] != '\n') {
          i += 2;  // an escaped character
          continue;
        }
        if (c == '\n') return std::nullopt;  // toml++ stops here: the string is not closed
        if (c == '"') {
          in = In::kOutside;
          last = c;
        }
        break;
      case In::kLiteral:
        if (c == '\n') return std::nullopt;
        if (c == '\'') {
          in = In::kOutside;
          last = c;
        }
        break;
      case In::kMultiLineBasic:
        if (c == '\\') {
          // An escape, or a line-ending backslash: toml++ classifies what follows, skipping
          // whitespace and newlines.
          std::size_t j = i + 1;
          while (j < text.size() &&
                 std::string_view(" \t\r\n").find(text[j]) != std::string_view::npos)
            ++j;
          if (non_ascii(j))
            return unsafe(
                j,
                "ASCII text after a backslash in a multi-line string (the TOML reader, toml++ 3.3, "
                "cannot read other text there)");
          i = j == i + 1 ? i + 2 : j;
          continue;
        }
        [[fallthrough]];
      case In::kMultiLineLiteral:
        if (c == (in == In::kMultiLineBasic ? '"' : '\'')) {
          // Up to two quotes of the text may come before the closing three.
          const std::size_t n = run_of(i, c);
          if (n >= 3) {
            in = In::kOutside;
            last = c;
          }
          i += n;
          continue;
        }
        break;
    }
    ++i;
  }
  return std::nullopt;
}

}  // namespace logz::detail
