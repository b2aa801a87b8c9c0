#include "gnuplot_strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "logz/core/error.hpp"

namespace logz::plots {

namespace {

unsigned byte_at(std::string_view s, std::size_t i) { return static_cast<unsigned char>(s[i]); }

// The length of the well-formed UTF-8 sequence starting at s[i] (RFC 3629: no overlong forms,
// no surrogates, nothing above U+10FFFF), or 0 when none starts there.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const unsigned lead = byte_at(s, i);
  if (lead < 0x80) return 1;
  std::size_t n = 0;
  unsigned lo = 0x80, hi = 0xBF;  // the range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    n = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    n = 3;
    if (lead == 0xE0) lo = 0xA0;
    if (lead == 0xED) hi = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    n = 4;
    if (lead == 0xF0) lo = 0x90;
    if (lead == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > s.size() || byte_at(s, i + 1) < lo || byte_at(s, i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if (byte_at(s, i + k) < 0x80 || byte_at(s, i + k) > 0xBF) return 0;
  return n;
}

bool is_control(unsigned c) { return c < 0x20 || c == 0x7F; }

std::string escape_control(unsigned c) {
  switch (c) {
    case '\n':
      return "\\n";
    case '\r':
      return "\\r";
    case '\t':
      return "\\t";
    default:
      return fmt::format("\\x{:02x}", c);
  }
}

// A double-quoted gnuplot string with every ASCII character but letters, digits, the space and
// . _ - / , : + = ( ) written as an octal escape: gnuplot 5.4 misreads '' after a quote in a
// single-quoted string, and its line scanners (`command` substitution, @macros, # comments,
// the braces of a block) look at quotes, backquotes, @, # and braces wherever they are;
// escaped, none of them is on the line. The bytes of UTF-8 sequences (0x80 and up) stay.
std::string double_quoted(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    const unsigned b = static_cast<unsigned char>(c);
    const bool plain = b >= 0x80 || (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') ||
                       (c >= 'a' && c <= 'z') ||
                       std::string_view(" ._-/,:+=()").find(c) != std::string_view::npos;
    // \0 and three digits: gnuplot reads up to four digits after \0, three after \1 to \7.
    out += plain ? std::string(1, c) : fmt::format("\\{:04o}", b);
  }
  return out + "\"";
}

}  // namespace

std::string one_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_length(text, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD
      ++i;
    } else if (n == 1 && is_control(byte_at(text, i))) {
      out += escape_control(byte_at(text, i));
      ++i;
    } else if (n == 2 && byte_at(text, i) == 0xC2 && byte_at(text, i + 1) < 0xA0) {
      out += fmt::format("\\u{:04x}", byte_at(text, i + 1));  // C1 controls U+0080..U+009F
      i += 2;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string gnuplot_string(std::string_view text) { return double_quoted(one_line(text)); }

std::string gnuplot_text(std::string_view text) { return gnuplot_string(text) + " noenhanced"; }

std::string gnuplot_file_name(std::string_view name, std::string_view where) {
  if (std::any_of(name.begin(), name.end(),
                  [](char c) { return is_control(static_cast<unsigned char>(c)); }))
    fail_input(one_line(where), "",
               "a file name without control characters, for gnuplot to read (got \"" +
                   one_line(name) + "\")");
  // A relative name always gets ./ before it: gnuplot reads a name starting with < as a pipe, -
  // or + as stdin and $ as a datablock.
  const bool absolute = !name.empty() && name.front() == '/';
  return double_quoted(absolute ? std::string(name) : "./" + std::string(name));
}

std::string file_name_part(std::string_view text) {
  std::string out(text);
  std::replace_if(
      out.begin(), out.end(), [](char c) { return is_control(static_cast<unsigned char>(c)); },
      '_');
  return out;
}

std::string gnuplot_number(double x) {
  return std::isfinite(x) ? fmt::format("{:.10g}", x) : std::string("NaN");
}

}  // namespace logz::plots
