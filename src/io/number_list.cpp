#include "logz/io/number_list.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <system_error>

#include "logz/core/error.hpp"
#include "logz/io/array.hpp"
#include "logz/io/npy.hpp"
#include "printable.hpp"

namespace logz::io {
namespace {

bool ends_with_npy(const std::string& path) {
  if (path.size() < 4) return false;
  std::string ext = path.substr(path.size() - 4);
  for (char& c : ext) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  return ext == ".npy";
}

std::string describe_non_finite(double v) {
  if (std::isnan(v)) return "nan";
  return v > 0 ? "inf" : "-inf";
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

enum class Parse { kOk, kBad, kOutOfRange };

// Parses all of s as a double (an optional leading '+' is allowed). Values that underflow are
// accepted as the nearest subnormal or zero; values that overflow are kOutOfRange.
Parse parse_double(std::string_view s, double& out) {
  if (s.size() > 1 && s[0] == '+' && s[1] != '-' && s[1] != '+') s.remove_prefix(1);
  if (s.empty()) return Parse::kBad;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  if (ptr != s.data() + s.size()) return Parse::kBad;
  if (ec == std::errc::invalid_argument) return Parse::kBad;
  if (ec == std::errc::result_out_of_range) {
    const std::string copy(s);
    const double v = std::strtod(copy.c_str(), nullptr);
    if (!std::isfinite(v)) return Parse::kOutOfRange;
    out = v;
  }
  return Parse::kOk;
}

std::vector<double> numbers_from_array(const Array& a, const std::string& path) {
  const bool ok = a.ndim() == 1 || (a.ndim() == 2 && (a.shape[0] == 1 || a.shape[1] == 1));
  if (!ok) {
    fail_input(path, "",
               "a 1-D array, or a 2-D array with one row or one column, got shape " +
                   shape_to_string(a.shape));
  }
  if (a.doubles().empty()) fail_input(path, "", "at least one number, got an empty array");
  for (std::size_t i = 0; i < a.doubles().size(); ++i) {
    if (!std::isfinite(a.doubles()[i])) {
      fail_input(path, "element " + std::to_string(i),
                 "a finite number, got " + describe_non_finite(a.doubles()[i]));
    }
  }
  return a.doubles();
}

std::vector<double> numbers_from_text(std::string_view text, const std::string& path) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // UTF-8 byte order mark
  std::vector<double> values;
  bool seen_content = false;
  bool header = false;
  std::size_t line_no = 0;
  while (!text.empty()) {
    ++line_no;
    const std::size_t nl = text.find('\n');
    const std::string_view raw = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    const std::string_view line = trim(raw);
    if (line.empty() || line.front() == '#') continue;

    const std::string where = path + ":" + std::to_string(line_no);
    double v = 0.0;
    const Parse result = parse_double(line, v);
    if (result == Parse::kBad && !seen_content) {
      // A first line that does not even look like the start of a number is a column header.
      const char c = line.front();
      if (!((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.')) {
        seen_content = true;
        header = true;
        continue;
      }
    }
    seen_content = true;
    if (result == Parse::kBad) {
      const bool several = line.find_first_of(", \t;") != std::string_view::npos;
      fail_input(
          where, "",
          std::string(several ? "one number per line (a single column)" : "a finite number") +
              ", got '" + printable(line, 40) + "'");
    }
    if (result == Parse::kOutOfRange) {
      fail_input(where, "", "a finite number, got '" + printable(line, 40) + "' (out of range)");
    }
    if (!std::isfinite(v)) fail_input(where, "", "a finite number, got " + describe_non_finite(v));
    values.push_back(v);
  }
  if (values.empty()) {
    fail_input(path, "",
               std::string("at least one number, got ") +
                   (header ? "only a header line" : "none (empty file or only comments)"));
  }
  return values;
}

}  // namespace

std::vector<double> read_numbers(const std::string& path) {
  const std::vector<unsigned char> bytes = read_file_bytes(path);
  const bool npy_magic =
      bytes.size() >= 6 && bytes[0] == 0x93 && std::memcmp(bytes.data() + 1, "NUMPY", 5) == 0;
  if (ends_with_npy(path) || npy_magic)
    return numbers_from_array(parse_npy(bytes, path).to_float64(), path);
  if (bytes.size() >= 4 && bytes[0] == 'P' && bytes[1] == 'K' && bytes[2] == 3 && bytes[3] == 4) {
    fail_input(path, "", "a text file of numbers or a .npy file, got a ZIP archive (.npz?)");
  }
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return numbers_from_text(text, path);
}

}  // namespace logz::io
