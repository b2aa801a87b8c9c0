#include "logz/io/npy.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <array>
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
#include "logz/io/memory_archive.hpp"
#include "logz/io/output_file.hpp"
#include "npy_stream.hpp"
#include "printable.hpp"

namespace logz::io {
namespace {

constexpr unsigned char kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
constexpr std::size_t kMaxDims = 64;
constexpr int kMaxNesting = 32;
// NumPy itself refuses headers over 10,000 bytes unless told otherwise; a header claiming more
// than this is corrupt, and is refused before a buffer of that size is allocated.
constexpr std::size_t kMaxHeaderBytes = std::size_t{1} << 20;
// The shortest header is the dict "{}" (which then lacks its keys). A version 1.0 length below
// it would also end the header inside the 2 bytes read with the length.
constexpr std::size_t kMinHeaderBytes = 2;

std::string_view as_chars(std::span<const unsigned char> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

std::string describe_start(std::span<const unsigned char> bytes) {
  if (bytes.empty()) return "an empty file";
  if (bytes.size() >= 4 && bytes[0] == 'P' && bytes[1] == 'K' && bytes[2] == 3 && bytes[3] == 4) {
    return "a ZIP archive (an .npz file?)";
  }
  // Appended piecewise: GCC 12 warns falsely (-Wrestrict) on "'" + string + "'" once inlined.
  std::string quoted = "'";
  quoted += printable(as_chars(bytes.first(std::min<std::size_t>(bytes.size(), 8))), 48);
  quoted += "'";
  return quoted;
}

// ---------------------------------------------------------------- header dict literal

// The subset of Python literals a .npy header uses: strings, True/False/None, integers,
// tuples, lists and dicts (the last two only appear in structured dtypes, which are rejected).
struct PyEntry;

struct PyValue {
  enum class Kind { kString, kBool, kNone, kInt, kTuple, kList, kDict };
  Kind kind = Kind::kNone;
  std::string str;
  bool boolean = false;
  bool negative = false;
  bool overflow = false;
  std::uint64_t integer = 0;
  std::vector<PyValue> items;  // tuple and list elements
  std::vector<PyEntry> dict;   // dict entries (string keys only)
};

// A dict entry: a struct, not a std::pair, whose traits would need PyValue complete inside
// its own definition (clang with libstdc++ refuses the pair).
struct PyEntry {
  std::string key;
  PyValue value;
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
        // NumPy's literal_eval keeps the last of repeated keys; an ambiguous header is refused.
        for (const auto& entry : v.dict) {
          if (entry.key == key) {
            fail_input(
                source_, printable(key, 48),
                "each key once in the header dict, got it twice in '" + printable(text_, 96) + "'");
          }
        }
        v.dict.push_back({std::move(key), std::move(value)});
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

// The descriptor codes of the dtypes, in Dtype order; '<' or '>' (or '|', '=') before them.
constexpr std::array<std::string_view, kNumDtypes> kTypeCodes = {"f8", "f4", "i8", "i4", "i2", "i1",
                                                                 "u8", "u4", "u2", "u1", "b1"};

struct Descr {
  Dtype dtype = Dtype::float64;
  bool big_endian = false;
};

Descr parse_descr(const std::string& descr, const std::string& source) {
  Descr d;
  const auto code =
      std::find(kTypeCodes.begin(), kTypeCodes.end(),
                std::string_view(descr).substr(std::min<std::size_t>(1, descr.size())));
  const char order = descr.empty() ? '\0' : descr[0];
  if (descr.size() != 3 || code == kTypeCodes.end() ||
      (order != '<' && order != '>' && order != '|' && order != '=')) {
    fail_input(source, "descr",
               "a dtype among float64, float32, int8/16/32/64, uint8/16/32/64, bool (e.g. '<f8'), "
               "got '" +
                   printable(descr, 48) + "'");
  }
  d.dtype = static_cast<Dtype>(code - kTypeCodes.begin());
  // '|' ("not applicable") only makes sense for one-byte types; like '=' it means native.
  d.big_endian = order == '>' || (order != '<' && std::endian::native == std::endian::big);
  return d;
}

std::string descr_of(Dtype dtype) {
  const char order = dtype_size(dtype) == 1 ? '|' : '<';
  return order + std::string(kTypeCodes[static_cast<std::size_t>(dtype)]);
}

std::uint64_t load_le(const unsigned char* p, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = n; i-- > 0;) v = (v << 8) | p[i];
  return v;
}

// Reverses the bytes of every itemsize-byte element in place.
void swap_bytes(std::span<std::byte> data, std::size_t itemsize) {
  for (std::size_t off = 0; off + itemsize <= data.size(); off += itemsize) {
    std::reverse(data.begin() + static_cast<std::ptrdiff_t>(off),
                 data.begin() + static_cast<std::ptrdiff_t>(off + itemsize));
  }
}

// Reorders a Fortran-order (column-major) buffer into C order.
template <typename T>
std::vector<T> fortran_to_c(const std::vector<T>& f, const std::vector<std::size_t>& shape) {
  const std::size_t nd = shape.size();
  std::vector<T> c(f.size());
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

// ---------------------------------------------------------------- header

// What the header dict says about the data that follow it.
struct Header {
  std::string descr_text;  // as the file spells it, for messages
  Descr descr;
  bool fortran_order = false;
  std::vector<std::size_t> shape;
  std::optional<std::size_t> data_bytes;  // nullopt: more than size_t can count
};

Header parse_header(std::string_view text, const std::string& src) {
  const PyValue dict = HeaderParser(text, src).parse_top();
  const PyValue* descr = find_key(dict, "descr");
  const PyValue* fortran = find_key(dict, "fortran_order");
  const PyValue* shape_v = find_key(dict, "shape");
  if (descr == nullptr || fortran == nullptr || shape_v == nullptr) {
    fail_input(
        src, "header",
        "the keys 'descr', 'fortran_order' and 'shape', got header '" + printable(text, 96) + "'");
  }
  if (descr->kind != PyValue::Kind::kString) {
    fail_input(src, "descr", "a simple dtype string such as '<f8', got a structured dtype");
  }
  Header h;
  h.descr_text = descr->str;
  h.descr = parse_descr(descr->str, src);
  if (fortran->kind != PyValue::Kind::kBool) {
    fail_input(src, "fortran_order", "True or False");
  }
  h.fortran_order = fortran->boolean;
  if (shape_v->kind != PyValue::Kind::kTuple) {
    fail_input(src, "shape", "a tuple of non-negative integers");
  }
  if (shape_v->items.size() > kMaxDims) {
    fail_input(src, "shape",
               "at most " + std::to_string(kMaxDims) + " dimensions, got " +
                   std::to_string(shape_v->items.size()));
  }
  for (const PyValue& dim : shape_v->items) {
    if (dim.kind != PyValue::Kind::kInt || dim.negative || dim.overflow ||
        dim.integer > std::numeric_limits<std::size_t>::max()) {
      fail_input(src, "shape",
                 "a tuple of non-negative integers, got '" + printable(text, 96) + "'");
    }
    h.shape.push_back(static_cast<std::size_t>(dim.integer));
  }
  const std::size_t itemsize = dtype_size(h.descr.dtype);
  const std::optional<std::size_t> count = element_count(h.shape);
  if (count && *count <= std::numeric_limits<std::size_t>::max() / itemsize) {
    h.data_bytes = *count * itemsize;
  }
  return h;
}

// Reads until dst is full or the stream ends; returns the bytes filled.
std::size_t read_fully(const ByteSource& read, std::span<std::byte> dst) {
  std::size_t done = 0;
  while (done < dst.size()) {
    const std::size_t got = read(dst.subspan(done));
    if (got == 0) break;
    done += got;
  }
  return done;
}

[[noreturn]] void fail_truncated(const NpyStream& s, const std::string& key,
                                 const std::string& expected, std::uint64_t got) {
  fail_input(s.source, key,
             expected + ", got " + std::to_string(got) + " (" + s.container + " truncated)");
}

// The end of the stream after the data: one byte more is asked for, so that a stream longer
// than its size is refused (and libzip checks a member's CRC-32 on reaching its end).
void expect_end(const NpyStream& s) {
  std::byte probe[1];
  if (read_fully(s.read, probe) != 0) {
    fail_input(
        s.source, "data",
        std::to_string(s.size) + " bytes in all as the " + s.container + " size says, got more");
  }
}

// The header's byte order and memory order turned into the host's and C order.
void to_host_c_order(Array& a, const NpyLayout& h) {
  const std::size_t itemsize = dtype_size(a.dtype());
  if (itemsize > 1 && h.big_endian != (std::endian::native == std::endian::big)) {
    swap_bytes(a.bytes(), itemsize);
  }
  if (a.dtype() == Dtype::boolean) {
    for (Bool& b : a.elements<Bool>()) b.value = b.value != 0 ? 1 : 0;
  }
  if (h.fortran_order && a.shape.size() >= 2) {
    std::visit([&](auto& v) { v = fortran_to_c(v, a.shape); }, a.values);
  }
}

// Opens path for reading; InputError "path: expected a readable file (reason)" if it cannot.
std::unique_ptr<std::FILE, int (*)(std::FILE*)> open_for_reading(const std::string& path) {
  errno = 0;
  std::FILE* raw = std::fopen(path.c_str(), "rb");
  if (raw == nullptr) {
    fail_input(path, "", std::string("a readable file (") + std::strerror(errno) + ")");
  }
  return {raw, &std::fclose};
}

}  // namespace

// ---------------------------------------------------------------- public API

NpyLayout read_npy_layout(const NpyStream& s) {
  const std::string& src = s.source;
  // Magic (6), version (2) and header length (2 in version 1.0, 4 after).
  std::array<unsigned char, 12> start{};
  const std::size_t got_start =
      read_fully(s.read, std::as_writable_bytes(std::span(start).first(
                             static_cast<std::size_t>(std::min<std::uint64_t>(s.size, 12)))));
  const std::span<const unsigned char> pre(start.data(), got_start);
  if (pre.size() < sizeof(kMagic) || std::memcmp(pre.data(), kMagic, sizeof(kMagic)) != 0) {
    fail_input(src, "magic", "a .npy file starting with \\x93NUMPY, got " + describe_start(pre));
  }
  if (pre.size() < 10) {
    fail_truncated(s, "header", "at least 10 bytes of magic, version and header length",
                   pre.size());
  }
  const unsigned major = pre[6];
  const unsigned minor = pre[7];
  if (!(major >= 1 && major <= 3 && minor == 0)) {
    fail_input(src, "version",
               "format version 1.0, 2.0 or 3.0, got " + std::to_string(major) + "." +
                   std::to_string(minor));
  }
  const std::size_t prefix = major == 1 ? 10 : 12;
  if (pre.size() < prefix) {
    fail_truncated(
        s, "header",
        "at least " + std::to_string(prefix) + " bytes of magic, version and header length",
        pre.size());
  }
  const std::uint64_t header_len = load_le(pre.data() + 8, prefix - 8);
  if (header_len > s.size - prefix) {
    fail_truncated(s, "header", std::to_string(header_len) + " header bytes", s.size - prefix);
  }
  if (header_len > kMaxHeaderBytes || header_len < kMinHeaderBytes) {
    fail_input(src, "header",
               "a header of " + std::to_string(kMinHeaderBytes) + " to " +
                   std::to_string(kMaxHeaderBytes) + " bytes, got " + std::to_string(header_len));
  }
  // The first bytes of a version 1.0 header came with `start`.
  std::string header(pre.begin() + static_cast<std::ptrdiff_t>(prefix), pre.end());
  const std::size_t already = header.size();
  header.resize(static_cast<std::size_t>(header_len));
  const std::size_t got_header = read_fully(
      s.read, std::as_writable_bytes(std::span(header.data(), header.size()).subspan(already)));
  if (already + got_header < header.size()) {
    fail_truncated(s, "header", std::to_string(header_len) + " header bytes", already + got_header);
  }
  const Header h = parse_header(header, src);
  if (s.check) s.check(h.shape);

  const std::uint64_t available = s.size - prefix - header_len;
  if (!h.data_bytes || *h.data_bytes != available) {
    std::string expectation = "the data size implied by shape " + shape_to_string(h.shape) +
                              " of '" + printable(h.descr_text, 48) + "' (";
    expectation += h.data_bytes ? std::to_string(*h.data_bytes) : std::string("too large");
    expectation += " bytes), got " + std::to_string(available) + " bytes";
    if (h.data_bytes) {
      expectation += *h.data_bytes > available ? " (" + s.container + " truncated)"
                                               : " (" + s.container + " has trailing bytes)";
    }
    fail_input(src, "data", expectation);
  }
  NpyLayout layout;
  layout.dtype = h.descr.dtype;
  layout.big_endian = h.descr.big_endian;
  layout.fortran_order = h.fortran_order;
  layout.shape = h.shape;
  layout.data_offset = prefix + header_len;
  layout.data_bytes = *h.data_bytes;
  return layout;
}

Array read_npy_stream(const NpyStream& s) {
  const NpyLayout layout = read_npy_layout(s);
  // Only now, with the size known to match, is the data buffer allocated.
  Array a = Array::zeros(layout.dtype, layout.shape);
  const std::size_t got_data = read_fully(s.read, a.bytes());
  if (got_data < layout.data_bytes) {
    fail_truncated(s, "data", std::to_string(layout.data_bytes) + " bytes of data", got_data);
  }
  expect_end(s);
  to_host_c_order(a, layout);
  return a;
}

void read_npy_doubles(const NpyStream& s, const NpyLayout& layout, std::span<double> dst,
                      bool column_major) {
  const std::size_t itemsize = dtype_size(layout.dtype);
  const std::size_t count = static_cast<std::size_t>(layout.data_bytes / itemsize);
  if (dst.size() != count)
    fail_argument("read_npy_doubles", "dst",
                  "as many values as shape " + shape_to_string(layout.shape) + " holds, got " +
                      std::to_string(dst.size()));
  const std::vector<std::size_t>& shape = layout.shape;
  const std::size_t nd = shape.size();
  // The file's order is dst's (any 0-D or 1-D array), or element k of the file goes to dst[at]:
  // `at` follows the multi-index, advanced with axis 0 fastest in Fortran order, the last in C.
  const bool same_order = nd < 2 || layout.fortran_order == column_major;
  std::vector<std::size_t> stride(nd, 1), index(nd, 0);  // dst's step along each axis
  if (column_major) {
    for (std::size_t d = 1; d < nd; ++d) stride[d] = stride[d - 1] * shape[d - 1];
  } else {
    for (std::size_t d = nd - 1; d-- > 0;) stride[d] = stride[d + 1] * shape[d + 1];
  }
  std::size_t at = 0;
  const auto advance = [&] {
    for (std::size_t a = 0; a < nd; ++a) {
      const std::size_t d = layout.fortran_order ? a : nd - 1 - a;
      at += stride[d];
      if (++index[d] < shape[d]) return;
      at -= index[d] * stride[d];
      index[d] = 0;
    }
  };
  const bool swap = itemsize > 1 && layout.big_endian != (std::endian::native == std::endian::big);
  // A chunk of the file's bytes at a time: the data are held once, as doubles, in dst.
  constexpr std::size_t kChunkBytes = std::size_t{1} << 20;
  std::vector<std::byte> chunk(std::min<std::size_t>(count, kChunkBytes / itemsize) * itemsize);
  for (std::size_t done = 0; done < count;) {
    const std::span<std::byte> bytes =
        std::span(chunk).first(std::min(count - done, chunk.size() / itemsize) * itemsize);
    const std::size_t got = read_fully(s.read, bytes);
    if (got < bytes.size()) {
      fail_truncated(s, "data", std::to_string(layout.data_bytes) + " bytes of data",
                     done * itemsize + got);
    }
    if (swap) swap_bytes(bytes, itemsize);
    detail::with_element_type(layout.dtype, [&]<typename T>(std::type_identity<T>) {
      for (std::size_t k = 0; k < bytes.size() / sizeof(T); ++k) {
        T v;
        std::memcpy(&v, bytes.data() + k * sizeof(T), sizeof(T));
        double x = 0.0;
        if constexpr (std::is_same_v<T, Bool>) {
          x = v.value != 0 ? 1.0 : 0.0;
        } else {
          x = static_cast<double>(v);
        }
        if (same_order) {
          dst[done + k] = x;
        } else {
          dst[at] = x;
          advance();
        }
      }
    });
    done += bytes.size() / itemsize;
  }
  expect_end(s);
}

std::vector<unsigned char> read_file_bytes(const std::string& path) {
  const auto file = open_for_reading(path);
  std::vector<unsigned char> bytes;
  std::error_code ec;
  const std::uintmax_t expected = std::filesystem::file_size(path, ec);
  std::size_t chunk = 1 << 20;
  const bool sized = !ec && expected > 0 && expected < std::numeric_limits<std::size_t>::max() / 2;
  if (sized) chunk = static_cast<std::size_t>(expected) + 1;  // one read, plus one byte to see EOF
  // A pipe or a device has no size to go by, and may never end (/dev/zero): read at most this.
  constexpr std::size_t kMaxUnsized = std::size_t{1} << 30;
  while (true) {
    const std::size_t old = bytes.size();
    if (!sized && old >= kMaxUnsized)
      fail_input(path, "", "a file, or a stream that ends within 1 GiB");
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
  write_output_file(path, bytes);  // io/output_file.hpp: complete or absent
}

Array parse_npy(std::span<const unsigned char> bytes, const std::string& source_name) {
  std::size_t pos = 0;
  const ByteSource read = [&](std::span<std::byte> dst) {
    const std::size_t n = std::min(dst.size(), bytes.size() - pos);
    if (n > 0) std::memcpy(dst.data(), bytes.data() + pos, n);
    pos += n;
    return n;
  };
  return read_npy_stream({bytes.size(), read, source_name, "file"});
}

Array read_npy(const std::string& path) {
  if (is_memory_path(path)) return read_memory_array(path, "");
  const auto file = open_for_reading(path);
  struct stat st {};
  if (::fstat(::fileno(file.get()), &st) != 0 || !S_ISREG(st.st_mode)) {
    return parse_npy(read_file_bytes(path), path);  // a pipe or device: no size to go by
  }
  const ByteSource read = [&](std::span<std::byte> dst) {
    errno = 0;
    const std::size_t got = std::fread(dst.data(), 1, dst.size(), file.get());
    if (got < dst.size() && std::ferror(file.get())) {
      fail_input(path, "",
                 std::string("a readable file (") + std::strerror(errno != 0 ? errno : EIO) + ")");
    }
    return got;
  };
  return read_npy_stream({static_cast<std::uint64_t>(st.st_size), read, path, "file"});
}

std::vector<unsigned char> encode_npy_header(const Array& a) {
  const std::optional<std::size_t> count = element_count(a.shape);
  if (!count || *count != a.size()) {
    fail_argument("encode_npy", "a",
                  "as many elements as the product of shape " + shape_to_string(a.shape) +
                      ", got " + std::to_string(a.size()));
  }
  std::string header =
      "{'descr': '" + descr_of(a.dtype()) + "', 'fortran_order': False, 'shape': (";
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

  std::vector<unsigned char> out(prefix + header.size());
  std::memcpy(out.data(), kMagic, sizeof(kMagic));
  out[6] = major;
  out[7] = 0;
  const std::size_t len = header.size();
  for (std::size_t i = 0; i < prefix - 8; ++i) {
    out[8 + i] = static_cast<unsigned char>(len >> (8 * i));
  }
  std::memcpy(out.data() + prefix, header.data(), header.size());
  return out;
}

std::vector<unsigned char> encode_npy(const Array& a) {
  std::vector<unsigned char> out = encode_npy_header(a);
  const std::size_t header_size = out.size();
  const std::span<const std::byte> data = a.bytes();
  out.resize(header_size + data.size());
  if (!data.empty()) std::memcpy(out.data() + header_size, data.data(), data.size());
  // .npy data are little-endian, as the header says.
  if (std::endian::native == std::endian::big) {
    swap_bytes(std::as_writable_bytes(std::span(out).subspan(header_size)), dtype_size(a.dtype()));
  }
  return out;
}

void write_npy(const std::string& path, const Array& a) {
  const std::vector<unsigned char> bytes = encode_npy(a);
  write_file_bytes(path, bytes);
}

}  // namespace logz::io
