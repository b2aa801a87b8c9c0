// Arrays of numbers as bytes and back, for what crosses ranks (parallel/ranks.hpp): the sender
// appends arrays in an order the receiver reads them in, each in the machine's representation
// (ranks of one run share it).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "logz/core/error.hpp"

namespace logz {

template <class T>
requires std::is_trivially_copyable_v<T>
void append_bytes(std::string& out, std::span<const T> values) {
  out.append(reinterpret_cast<const char*>(values.data()), values.size_bytes());
}

// An array after its length, read back by ByteReader::read_counted.
template <class T>
requires std::is_trivially_copyable_v<T>
void append_counted(std::string& out, std::span<const T> values) {
  const std::uint64_t n = values.size();
  append_bytes<std::uint64_t>(out, std::span<const std::uint64_t>(&n, 1));
  append_bytes<T>(out, values);
}

// A run of bytes after its length, read back by ByteReader::blob().
inline void append_blob(std::string& out, std::string_view blob) {
  const std::uint64_t n = blob.size();
  append_bytes<std::uint64_t>(out, std::span<const std::uint64_t>(&n, 1));
  out.append(blob);
}

// Reads arrays back in the order they were appended.
class ByteReader {
 public:
  explicit ByteReader(std::string_view bytes) : bytes_(bytes) {}
  template <class T>
  requires std::is_trivially_copyable_v<T>
  void read(std::span<T> out) { take_into(out.data(), out.size_bytes()); }
  std::string_view take(std::size_t n) {
    if (n > bytes_.size() - at_)
      fail_argument("logz::ByteReader", "bytes", "as many bytes as were appended");
    const std::string_view s = bytes_.substr(at_, n);
    at_ += n;
    return s;
  }
  // An array appended by append_counted.
  template <class T>
  requires std::is_trivially_copyable_v<T>
  void read_counted(std::vector<T>& out) {
    std::uint64_t n = 0;
    read<std::uint64_t>(std::span<std::uint64_t>(&n, 1));
    out.resize(count(n, sizeof(T)));
    read<T>(std::span<T>(out));
  }
  std::string_view blob() {
    std::uint64_t n = 0;
    read<std::uint64_t>(std::span<std::uint64_t>(&n, 1));
    return take(n);
  }
  // An element count read from the bytes, checked before anything of that size is allocated: at
  // most the bytes left hold, at `bytes_each` apiece.
  std::size_t count(std::uint64_t n, std::size_t bytes_each) const {
    if (n > remaining() / std::max<std::size_t>(bytes_each, 1))
      fail_argument("logz::ByteReader", "bytes", "counts of what the bytes hold");
    return static_cast<std::size_t>(n);
  }
  std::size_t remaining() const { return bytes_.size() - at_; }
  bool done() const { return at_ == bytes_.size(); }

 private:
  void take_into(void* out, std::size_t n) {
    const std::string_view s = take(n);
    if (n > 0) std::memcpy(out, s.data(), n);
  }
  std::string_view bytes_;
  std::size_t at_ = 0;
};

}  // namespace logz
