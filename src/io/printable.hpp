// Untrusted text quoted in error messages (file headers, lines of number lists): printable
// ASCII kept, every other byte written as \xNN, cut to max_chars with "...".
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace logz::io {

inline std::string printable(std::string_view text, std::size_t max_chars) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (char ch : text) {
    if (out.size() >= max_chars) {
      out += "...";
      break;
    }
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

}  // namespace logz::io
