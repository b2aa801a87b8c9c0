#include "logz/io/npy.hpp"

#include <bit>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <string_view>
#include <utility>

#include "logz/core/error.hpp"

namespace logz::io {
namespace {

constexpr unsigned char kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
constexpr std::size_t kMaxDims = 64;
constexpr int kMaxNesting = 32;

// Printable ASCII kept, everything else as \xNN; cut to max_chars with "...".
std::string printable(std::string_view text, std::size_t max_chars = 48) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (out.size() >= max_chars) {
      out += "...";
      break;
    }
    const auto c = static_cast<unsigned char>(text[i]);
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

std::string_view as_chars(std::span<const unsigned char> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

std::string describe_start(std::span<const unsigned char> bytes) {
  if (bytes.empty()) return "an empty file";
  if (bytes.size() >= 4 && bytes[0] == 'P' && bytes[1] == 'K' && bytes[2] == 3 && bytes[3] == 4) {
    return "a ZIP archive (an .npz file?)";
  }
  return "'" + printable(as_chars(bytes.first(std::min<std::size_t>(bytes.size(), 8)))) + "'";
}

// ---------------------------------------------------------------- header dict literal

// The subset of Python literals a .npy header uses: strings, True/False/None, integers,
// tuples, lists and dicts (the last two only appear in structured dtypes, which are rejected).
struct PyValue {
  enum class Kind { kString, kBool, kNone, kInt, kTuple, kList, kDict };
  Kind kind = Kind::kNone;
  std::string str;
  bool boolean = false;
  bool negative = false;
  bool overflow = false;
  std::uint64_t integer = 0;
  std::vector<PyValue> items;                         // tuple and list elements
  std::vector<std::pair<std::string, PyValue>> dict;  // dict entries (string keys only)
};

class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  PyValue parse_top() {
    skip_space();
    if (peek() != '{') fail("a Python dict literal starting with '{'");
    PyValue v = parse_value(0);
    skip_space();
    if (pos_ != text_.size()) fail("nothing after the closing '}'");
    return v;
  }

 private:
  [[noreturn]] void fail(std::string_view what) const {
    std::string msg(what);
    msg += ", got '" + printable(text_.substr(std::min(pos_, text_.size())), 32) + "' at offset " +
           std::to_string(pos_) + " of header '" + printable(text_, 96) + "'";
    fail_input(source_, "header", msg);
  }

  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }

  void skip_space() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' ||
            text_[pos_] == '\r' || text_[pos_] == '\f' || text_[pos_] == '\v')) {
      ++pos_;
    }
  }

  bool consume_word(std::string_view w) {
    if (text_.substr(pos_, w.size()) != w) return false;
    const std::size_t end = pos_ + w.size();
    if (end < text_.size()) {
      const char c = text_[end];
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_') {
        return false;
      }
    }
    pos_ = end;
    return true;
  }

  PyValue parse_value(int depth) {
    if (depth > kMaxNesting) fail("a header nested at most 32 levels deep");
    skip_space();
    const char c = peek();
    PyValue v;
    if (c == '\'' || c == '"') {
      v.kind = PyValue::Kind::kString;
      v.str = parse_string();
    } else if (c == '(' || c == '[') {
      const char close = c == '(' ? ')' : ']';
      v.kind = c == '(' ? PyValue::Kind::kTuple : PyValue::Kind::kList;
      ++pos_;
      skip_space();
      while (peek() != close) {
        v.items.push_back(parse_value(depth + 1));
        skip_space();
        if (peek() == ',') {
          ++pos_;
          skip_space();
        } else if (peek() != close) {
          fail(close == ')' ? "',' or ')' in a tuple" : "',' or ']' in a list");
        }
      }
      ++pos_;
    } else if (c == '{') {
      v.kind = PyValue::Kind::kDict;
      ++pos_;
      skip_space();
      while (peek() != '}') {
        if (peek() != '\'' && peek() != '"') fail("a quoted dict key");
        std::string key = parse_string();
        skip_space();
        if (peek() != ':') fail("':' after a dict key");
        ++pos_;
        PyValue value = parse_value(depth + 1);
        v.dict.emplace_back(std::move(key), std::move(value));
        skip_space();
        if (peek() == ',') {
          ++pos_;
          skip_space();
        } else if (peek() != '}') {
          fail("',' or '}' in a dict");
        }
      }
      ++pos_;
    } else if (consume_word("True")) {
      v.kind = PyValue::Kind::kBool;
      v.boolean = true;
    } else if (consume_word("False")) {
      v.kind = PyValue::Kind::kBool;
      v.boolean = false;
    } else if (consume_word("None")) {
      v.kind = PyValue::Kind::kNone;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      v.kind = PyValue::Kind::kInt;
      if (c == '-') {
        v.negative = true;
        ++pos_;
      }
      if (!(peek() >= '0' && peek() <= '9')) fail("an integer");
      while (peek() >= '0' && peek() <= '9') {
        const auto d = static_cast<std::uint64_t>(peek() - '0');
        if (v.integer > (std::numeric_limits<std::uint64_t>::max() - d) / 10) v.overflow = true;
        v.integer = v.integer * 10 + d;
        ++pos_;
      }
      if (peek() == 'L' || peek() == 'l') ++pos_;  // Python 2 long suffix in old files
    } else {
      fail("a Python literal (string, True, False, integer, tuple)");
    }
    return v;
  }

  std::string parse_string() {
    const char quote = text_[pos_++];
    std::string s;
    while (true) {
      if (pos_ >= text_.size()) fail("a closing quote");
      const char c = text_[pos_++];
      if (c == quote) break;
      if (c == '\\') {
        if (pos_ >= text_.size()) fail("a closing quote");
        s += text_[pos_++];
      } else {
        s += c;
      }
    }
    return s;
  }

  std::string_view text_;
  const std::string& source_;
  std::size_t pos_ = 0;
};

// ---------------------------------------------------------------- dtypes

enum class Elem { kF4, kF8, kI1, kI2, kI4, kI8, kU1, kU2, kU4, kU8, kBool };

struct Dtype {
  Elem elem = Elem::kF8;
  std::size_t itemsize = 8;
  bool big_endian = false;
};

[[noreturn]] void fail_dtype(const std::string& descr, const std::string& source) {
  fail_input(source, "descr",
             "a dtype among float64, float32, int8/16/32/64, uint8/16/32/64, bool (e.g. '<f8'), "
             "got '" +
                 printable(descr) + "'");
}

Dtype parse_descr(const std::string& descr, const std::string& source) {
  const auto unsupported = [&]() { fail_dtype(descr, source); };
  if (descr.size() < 3) unsupported();
  Dtype d;
  switch (descr[0]) {
    case '<':
      d.big_endian = false;
      break;
    case '>':
      d.big_endian = true;
      break;
    case '|':  // "not applicable": only meaningful for 1-byte types; treat as native
    case '=':
      d.big_endian = std::endian::native == std::endian::big;
      break;
    default:
      unsupported();
  }
  struct Code {
    std::string_view code;
    Elem elem;
    std::size_t itemsize;
  };
  static constexpr Code kCodes[] = {
      {"f8", Elem::kF8, 8}, {"f4", Elem::kF4, 4}, {"i1", Elem::kI1, 1},  {"i2", Elem::kI2, 2},
      {"i4", Elem::kI4, 4}, {"i8", Elem::kI8, 8}, {"u1", Elem::kU1, 1},  {"u2", Elem::kU2, 2},
      {"u4", Elem::kU4, 4}, {"u8", Elem::kU8, 8}, {"b1", Elem::kBool, 1}};
  const std::string_view code = std::string_view(descr).substr(1);
  for (const Code& c : kCodes) {
    if (c.code == code) {
      d.elem = c.elem;
      d.itemsize = c.itemsize;
      return d;
    }
  }
  fail_dtype(descr, source);
}

template <typename U>
U load_uint(const unsigned char* p, bool big_endian) {
  U u = 0;
  if (big_endian) {
    for (std::size_t i = 0; i < sizeof(U); ++i) u = static_cast<U>((u << 8) | p[i]);
  } else {
    for (std::size_t i = sizeof(U); i-- > 0;) u = static_cast<U>((u << 8) | p[i]);
  }
  return u;
}

template <>
std::uint8_t load_uint<std::uint8_t>(const unsigned char* p, bool) {
  return p[0];
}

template <typename T, typename U>
void convert(const unsigned char* src, std::size_t n, bool big_endian, double* out) {
  for (std::size_t i = 0; i < n; ++i) {
    out[i] = static_cast<double>(std::bit_cast<T>(load_uint<U>(src + i * sizeof(U), big_endian)));
  }
}

void convert_elements(const unsigned char* src, std::size_t n, const Dtype& d, double* out) {
  const bool big = d.big_endian;
  switch (d.elem) {
    case Elem::kF8:
      if (n == 0) break;
      if (!big && std::endian::native == std::endian::little) {
        std::memcpy(out, src, n * sizeof(double));
      } else {
        convert<double, std::uint64_t>(src, n, big, out);
      }
      break;
    case Elem::kF4:
      convert<float, std::uint32_t>(src, n, big, out);
      break;
    case Elem::kI1:
      convert<std::int8_t, std::uint8_t>(src, n, big, out);
      break;
    case Elem::kI2:
      convert<std::int16_t, std::uint16_t>(src, n, big, out);
      break;
    case Elem::kI4:
      convert<std::int32_t, std::uint32_t>(src, n, big, out);
      break;
    case Elem::kI8:
      convert<std::int64_t, std::uint64_t>(src, n, big, out);
      break;
    case Elem::kU1:
      convert<std::uint8_t, std::uint8_t>(src, n, big, out);
      break;
    case Elem::kU2:
      convert<std::uint16_t, std::uint16_t>(src, n, big, out);
      break;
    case Elem::kU4:
      convert<std::uint32_t, std::uint32_t>(src, n, big, out);
      break;
    case Elem::kU8:
      convert<std::uint64_t, std::uint64_t>(src, n, big, out);
      break;
    case Elem::kBool:
      for (std::size_t i = 0; i < n; ++i) out[i] = src[i] != 0 ? 1.0 : 0.0;
      break;
  }
}

// Reorders a Fortran-order (column-major) buffer into C order.
std::vector<double> fortran_to_c(const std::vector<double>& f,
                                 const std::vector<std::size_t>& shape) {
  const std::size_t nd = shape.size();
  std::vector<double> c(f.size());
  if (f.empty()) return c;
  std::vector<std::size_t> c_stride(nd, 1);
  for (std::size_t k = nd - 1; k-- > 0;) c_stride[k] = c_stride[k + 1] * shape[k + 1];
  std::vector<std::size_t> idx(nd, 0);
  std::size_t c_off = 0;
  for (std::size_t k = 0; k < f.size(); ++k) {
    c[c_off] = f[k];
    // Advance the multi-index with axis 0 fastest (Fortran order).
    for (std::size_t d = 0; d < nd; ++d) {
      ++idx[d];
      c_off += c_stride[d];
      if (idx[d] < shape[d]) break;
      c_off -= idx[d] * c_stride[d];
      idx[d] = 0;
    }
  }
  return c;
}

const PyValue* find_key(const PyValue& dict, std::string_view key) {
  for (const auto& [k, v] : dict.dict) {
    if (k == key) return &v;
  }
  return nullptr;
}

}  // namespace

// ---------------------------------------------------------------- public API

std::vector<unsigned char> read_file_bytes(const std::string& path) {
  errno = 0;
  std::FILE* raw = std::fopen(path.c_str(), "rb");
  if (raw == nullptr) {
    fail_input(path, "", std::string("a readable file (") + std::strerror(errno) + ")");
  }
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(raw, &std::fclose);
  std::vector<unsigned char> bytes;
  std::error_code ec;
  const std::uintmax_t expected = std::filesystem::file_size(path, ec);
  std::size_t chunk = 1 << 20;
  if (!ec && expected > 0 && expected < std::numeric_limits<std::size_t>::max() / 2) {
    chunk = static_cast<std::size_t>(expected) + 1;  // one read, plus one byte to see EOF
  }
  while (true) {
    const std::size_t old = bytes.size();
    bytes.resize(old + chunk);
    errno = 0;
    const std::size_t got = std::fread(bytes.data() + old, 1, chunk, file.get());
    bytes.resize(old + got);
    if (got < chunk) {
      if (std::ferror(file.get())) {
        const int err = errno != 0 ? errno : EIO;
        fail_input(path, "", std::string("a readable file (") + std::strerror(err) + ")");
      }
      if (std::feof(file.get())) break;
    }
    chunk = 1 << 20;
  }
  return bytes;
}

void write_file_bytes(const std::string& path, std::span<const unsigned char> bytes) {
  const auto fail_write = [&](int err) {
    fail_input(path, "",
               std::string("a writable file (") + std::strerror(err != 0 ? err : EIO) + ")");
  };
  errno = 0;
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) fail_write(errno);
  errno = 0;
  const std::size_t put = bytes.empty() ? 0 : std::fwrite(bytes.data(), 1, bytes.size(), file);
  if (put != bytes.size()) {
    const int err = errno;
    std::fclose(file);
    fail_write(err);
  }
  if (std::fclose(file) != 0) fail_write(errno);
}

Array parse_npy(std::span<const unsigned char> bytes, const std::string& source_name) {
  const std::string& src = source_name;
  if (bytes.size() < sizeof(kMagic) || std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) {
    fail_input(src, "magic", "a .npy file starting with \\x93NUMPY, got " + describe_start(bytes));
  }
  if (bytes.size() < 10) {
    fail_input(src, "header",
               "at least 10 bytes of magic, version and header length, got " +
                   std::to_string(bytes.size()) + " (file truncated)");
  }
  const unsigned major = bytes[6];
  const unsigned minor = bytes[7];
  if (!(major >= 1 && major <= 3 && minor == 0)) {
    fail_input(src, "version",
               "format version 1.0, 2.0 or 3.0, got " + std::to_string(major) + "." +
                   std::to_string(minor));
  }
  const std::size_t prefix = major == 1 ? 10 : 12;
  if (bytes.size() < prefix) {
    fail_input(src, "header",
               "at least " + std::to_string(prefix) + " bytes of magic, version and header " +
                   "length, got " + std::to_string(bytes.size()) + " (file truncated)");
  }
  const std::size_t header_len = major == 1 ? load_uint<std::uint16_t>(bytes.data() + 8, false)
                                            : load_uint<std::uint32_t>(bytes.data() + 8, false);
  if (header_len > bytes.size() - prefix) {
    fail_input(src, "header",
               std::to_string(header_len) + " header bytes, got " +
                   std::to_string(bytes.size() - prefix) + " (file truncated)");
  }
  const std::string_view header = as_chars(bytes.subspan(prefix, header_len));
  const PyValue dict = HeaderParser(header, src).parse_top();

  const PyValue* descr = find_key(dict, "descr");
  const PyValue* fortran = find_key(dict, "fortran_order");
  const PyValue* shape_v = find_key(dict, "shape");
  if (descr == nullptr || fortran == nullptr || shape_v == nullptr) {
    fail_input(src, "header",
               "the keys 'descr', 'fortran_order' and 'shape', got header '" +
                   printable(header, 96) + "'");
  }
  if (descr->kind != PyValue::Kind::kString) {
    fail_input(src, "descr", "a simple dtype string such as '<f8', got a structured dtype");
  }
  const Dtype dtype = parse_descr(descr->str, src);
  if (fortran->kind != PyValue::Kind::kBool) {
    fail_input(src, "fortran_order", "True or False");
  }
  if (shape_v->kind != PyValue::Kind::kTuple) {
    fail_input(src, "shape", "a tuple of non-negative integers");
  }
  if (shape_v->items.size() > kMaxDims) {
    fail_input(src, "shape",
               "at most " + std::to_string(kMaxDims) + " dimensions, got " +
                   std::to_string(shape_v->items.size()));
  }
  Array out;
  std::size_t count = 1;
  bool too_big = false;
  for (const PyValue& dim : shape_v->items) {
    if (dim.kind != PyValue::Kind::kInt || dim.negative || dim.overflow ||
        dim.integer > std::numeric_limits<std::size_t>::max()) {
      fail_input(src, "shape",
                 "a tuple of non-negative integers, got '" + printable(header, 96) + "'");
    }
    const auto n = static_cast<std::size_t>(dim.integer);
    out.shape.push_back(n);
    if (n != 0 && count > std::numeric_limits<std::size_t>::max() / n) too_big = true;
    count *= n;
  }
  for (std::size_t n : out.shape) {
    if (n == 0) too_big = false, count = 0;
  }
  if (!too_big && count > std::numeric_limits<std::size_t>::max() / dtype.itemsize) too_big = true;
  const std::size_t available = bytes.size() - prefix - header_len;
  if (too_big || count * dtype.itemsize != available) {
    std::string expectation = "the data size implied by shape " + shape_to_string(out.shape) +
                              " of '" + printable(descr->str) + "' (";
    expectation += too_big ? std::string("too large") : std::to_string(count * dtype.itemsize);
    expectation += " bytes), got " + std::to_string(available) + " bytes";
    if (!too_big) {
      expectation += count * dtype.itemsize > available ? " (file truncated)" : " (trailing bytes)";
    }
    fail_input(src, "data", expectation);
  }
  out.data.resize(count);
  convert_elements(bytes.data() + prefix + header_len, count, dtype, out.data.data());
  if (fortran->boolean && out.shape.size() >= 2) out.data = fortran_to_c(out.data, out.shape);
  return out;
}

Array read_npy(const std::string& path) {
  const std::vector<unsigned char> bytes = read_file_bytes(path);
  return parse_npy(bytes, path);
}

std::vector<unsigned char> encode_npy(const Array& a) {
  std::size_t count = 1;
  bool overflow = false;
  for (std::size_t n : a.shape) {
    if (n != 0 && count > std::numeric_limits<std::size_t>::max() / n) overflow = true;
    count *= n;
  }
  for (std::size_t n : a.shape) {
    if (n == 0) overflow = false, count = 0;
  }
  if (overflow || count != a.data.size()) {
    fail_argument("encode_npy", "a",
                  "data.size() equal to the product of shape " + shape_to_string(a.shape) +
                      ", got " + std::to_string(a.data.size()));
  }
  std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (";
  for (std::size_t i = 0; i < a.shape.size(); ++i) {
    if (i > 0) header += ", ";
    header += std::to_string(a.shape[i]);
  }
  if (a.shape.size() == 1) header += ",";
  header += "), }";
  // Pad with spaces and a final newline so that the data start on a 64-byte boundary.
  const std::size_t hlen = header.size() + 1;
  std::size_t prefix = 10;
  std::size_t pad = 64 - (prefix + hlen) % 64;
  unsigned char major = 1;
  if (hlen + pad > 0xffff) {
    major = 2;
    prefix = 12;
    pad = 64 - (prefix + hlen) % 64;
  }
  header.append(pad, ' ');
  header += '\n';

  std::vector<unsigned char> out(prefix + header.size() + count * sizeof(double));
  std::memcpy(out.data(), kMagic, sizeof(kMagic));
  out[6] = major;
  out[7] = 0;
  const std::size_t len = header.size();
  for (std::size_t i = 0; i < prefix - 8; ++i)
    out[8 + i] = static_cast<unsigned char>(len >> (8 * i));
  std::memcpy(out.data() + prefix, header.data(), header.size());
  unsigned char* dst = out.data() + prefix + header.size();
  if (std::endian::native == std::endian::little) {
    if (count > 0) std::memcpy(dst, a.data.data(), count * sizeof(double));
  } else {
    for (std::size_t i = 0; i < count; ++i) {
      const auto u = std::bit_cast<std::uint64_t>(a.data[i]);
      for (std::size_t b = 0; b < 8; ++b) dst[8 * i + b] = static_cast<unsigned char>(u >> (8 * b));
    }
  }
  return out;
}

void write_npy(const std::string& path, const Array& a) {
  const std::vector<unsigned char> bytes = encode_npy(a);
  write_file_bytes(path, bytes);
}

}  // namespace logz::io
