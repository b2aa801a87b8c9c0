#include "logz/io/npz.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <span>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/io/npy.hpp"

namespace logz::io {
namespace {

constexpr std::uint32_t kLocalSig = 0x04034b50;
constexpr std::uint32_t kCentralSig = 0x02014b50;
constexpr std::uint32_t kEndSig = 0x06054b50;
constexpr std::uint32_t kZip64EndSig = 0x06064b50;
constexpr std::uint32_t kZip64LocatorSig = 0x07064b50;
constexpr std::uint16_t kZip64ExtraId = 0x0001;
constexpr std::uint32_t kMax32 = 0xffffffffu;
constexpr std::uint16_t kMax16 = 0xffffu;
constexpr std::size_t kLocalHeaderSize = 30;
constexpr std::size_t kCentralHeaderSize = 46;
constexpr std::size_t kEndSize = 22;
constexpr std::size_t kZip64EndSize = 56;
constexpr std::size_t kZip64LocatorSize = 20;
constexpr std::size_t kZlibChunk = std::size_t{1} << 30;         // zlib counts in 32-bit uInt
constexpr std::uint16_t kDosDate1980 = (0 << 9) | (1 << 5) | 1;  // 1980-01-01, the DOS epoch

using Bytes = std::span<const unsigned char>;

std::uint64_t load_le(const unsigned char* p, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = n; i-- > 0;) v = (v << 8) | p[i];
  return v;
}
std::uint16_t le16(Bytes b, std::uint64_t off) {
  return static_cast<std::uint16_t>(load_le(b.data() + off, 2));
}
std::uint32_t le32(Bytes b, std::uint64_t off) {
  return static_cast<std::uint32_t>(load_le(b.data() + off, 4));
}
std::uint64_t le64(Bytes b, std::uint64_t off) { return load_le(b.data() + off, 8); }

// True when [off, off + len) lies inside a buffer of `size` bytes, without overflow.
bool fits(std::uint64_t off, std::uint64_t len, std::uint64_t size) {
  return off <= size && len <= size - off;
}

std::uint32_t crc32_of(Bytes data) {
  uLong crc = crc32(0L, Z_NULL, 0);
  for (std::size_t off = 0; off < data.size(); off += kZlibChunk) {
    const std::size_t n = std::min(kZlibChunk, data.size() - off);
    crc = crc32(crc, data.data() + off, static_cast<uInt>(n));
  }
  return static_cast<std::uint32_t>(crc);
}

std::string hex32(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", static_cast<unsigned>(v));
  return buf;
}

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// ---------------------------------------------------------------- reading

struct ZipEntry {
  std::string name;
  std::uint16_t flags = 0;
  std::uint16_t method = 0;
  std::uint32_t crc = 0;
  std::uint64_t comp_size = 0;
  std::uint64_t uncomp_size = 0;
  std::uint64_t local_offset = 0;
};

// Parses the end-of-central-directory record (and its ZIP64 counterpart) and the central
// directory. Every offset and length is checked against the buffer before it is used.
std::vector<ZipEntry> list_entries(Bytes b, const std::string& path) {
  const std::uint64_t size = b.size();
  const auto not_zip = [&](const std::string& why) {
    std::string got = why;
    if (size >= 6 && b[0] == 0x93 && std::memcmp(b.data() + 1, "NUMPY", 5) == 0) {
      got = "a .npy file, not an archive";
    } else if (size == 0) {
      got = "an empty file";
    }
    fail_input(path, "", "a ZIP archive (.npz), got " + got);
  };
  if (size < kEndSize) not_zip("a file of " + std::to_string(size) + " bytes");

  // The end record sits in the last 22 + (at most 65535 comment) bytes.
  std::uint64_t end_pos = size;
  const std::uint64_t lowest = size - kEndSize > kMax16 ? size - kEndSize - kMax16 : 0;
  for (std::uint64_t pos = size - kEndSize + 1; pos-- > lowest;) {
    if (le32(b, pos) == kEndSig && pos + kEndSize + le16(b, pos + 20) <= size) {
      end_pos = pos;
      break;
    }
  }
  if (end_pos == size) not_zip("no end-of-central-directory record");

  std::uint64_t disk = le16(b, end_pos + 4);
  std::uint64_t cd_disk = le16(b, end_pos + 6);
  std::uint64_t count = le16(b, end_pos + 10);
  std::uint64_t cd_size = le32(b, end_pos + 12);
  std::uint64_t cd_offset = le32(b, end_pos + 16);
  std::uint64_t cd_limit = end_pos;  // the central directory ends before this

  const bool has_locator =
      end_pos >= kZip64LocatorSize && le32(b, end_pos - kZip64LocatorSize) == kZip64LocatorSig;
  if (has_locator) {
    const std::uint64_t loc = end_pos - kZip64LocatorSize;
    const std::uint64_t z64 = le64(b, loc + 8);
    if (!fits(z64, kZip64EndSize, loc) || le32(b, z64) != kZip64EndSig) {
      fail_input(path, "zip64",
                 "a ZIP64 end-of-central-directory record at offset " + std::to_string(z64) +
                     ", got none (corrupt or truncated archive)");
    }
    disk = le32(b, z64 + 16);
    cd_disk = le32(b, z64 + 20);
    count = le64(b, z64 + 32);
    cd_size = le64(b, z64 + 40);
    cd_offset = le64(b, z64 + 48);
    cd_limit = z64;
  } else if (count == kMax16 || cd_size == kMax32 || cd_offset == kMax32) {
    fail_input(path, "zip64",
               "a ZIP64 end-of-central-directory locator for an archive whose end record is "
               "saturated, got none (corrupt or truncated archive)");
  }
  if (disk != 0 || cd_disk != 0) {
    fail_input(path, "", "a single-disk ZIP archive, got a multi-disk (split) archive");
  }
  if (!fits(cd_offset, cd_size, cd_limit)) {
    fail_input(path, "central directory",
               "a directory inside the file (offset " + std::to_string(cd_offset) + ", size " +
                   std::to_string(cd_size) + ", file size " + std::to_string(size) +
                   "), got one outside it (truncated archive?)");
  }

  std::vector<ZipEntry> entries;
  const std::uint64_t cd_end = cd_offset + cd_size;
  std::uint64_t p = cd_offset;
  for (std::uint64_t i = 0; i < count; ++i) {
    const auto bad = [&](const std::string& what) {
      fail_input(path, "central directory",
                 what + " for entry " + std::to_string(i + 1) + " of " + std::to_string(count) +
                     " (corrupt or truncated archive)");
    };
    if (!fits(p, kCentralHeaderSize, cd_end) || le32(b, p) != kCentralSig) {
      bad("a central directory header at offset " + std::to_string(p) + ", got none");
    }
    ZipEntry e;
    e.flags = le16(b, p + 8);
    e.method = le16(b, p + 10);
    e.crc = le32(b, p + 16);
    e.comp_size = le32(b, p + 20);
    e.uncomp_size = le32(b, p + 24);
    const std::uint64_t name_len = le16(b, p + 28);
    const std::uint64_t extra_len = le16(b, p + 30);
    const std::uint64_t comment_len = le16(b, p + 32);
    std::uint64_t start_disk = le16(b, p + 34);
    e.local_offset = le32(b, p + 42);
    if (!fits(p + kCentralHeaderSize, name_len + extra_len + comment_len, cd_end)) {
      bad("name, extra field and comment inside the central directory, got them past its end");
    }
    e.name.assign(reinterpret_cast<const char*>(b.data() + p + kCentralHeaderSize), name_len);
    // ZIP64 extra field: 64-bit values for exactly those fields saturated above, in order.
    std::uint64_t q = p + kCentralHeaderSize + name_len;
    const std::uint64_t extra_end = q + extra_len;
    while (q + 4 <= extra_end) {
      const std::uint16_t id = le16(b, q);
      const std::uint64_t len = le16(b, q + 2);
      if (!fits(q + 4, len, extra_end)) bad("extra fields within their declared length, got more");
      if (id == kZip64ExtraId) {
        std::uint64_t f = q + 4;
        const std::uint64_t f_end = f + len;
        const auto take = [&](std::uint64_t& field, std::size_t width) {
          if (!fits(f, width, f_end)) bad("a ZIP64 extra field holding every saturated size");
          field = load_le(b.data() + f, width);
          f += width;
        };
        if (e.uncomp_size == kMax32) take(e.uncomp_size, 8);
        if (e.comp_size == kMax32) take(e.comp_size, 8);
        if (e.local_offset == kMax32) take(e.local_offset, 8);
        if (start_disk == kMax16) take(start_disk, 4);
      }
      q += 4 + len;
    }
    if (start_disk != 0) {
      fail_input(path, e.name, "a member on disk 0, got a multi-disk (split) archive");
    }
    entries.push_back(std::move(e));
    p += kCentralHeaderSize + name_len + extra_len + comment_len;
  }
  return entries;
}

std::vector<unsigned char> inflate_raw(Bytes src, std::uint64_t declared, const std::string& path,
                                       const std::string& name) {
  z_stream zs{};
  if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) throw Error("zlib: inflateInit2 failed");
  std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&zs, &inflateEnd);
  const auto bad_data = [&](const std::string& got) {
    fail_input(path, name, "valid deflate data, got " + got + " (corrupt archive)");
  };
  // Grow the output as data arrive, never past declared + 1 (one extra byte detects excess),
  // so that a forged size cannot force a huge allocation.
  const std::uint64_t cap = declared < std::numeric_limits<std::size_t>::max() - 1
                                ? declared + 1
                                : std::numeric_limits<std::size_t>::max();
  std::vector<unsigned char> out(static_cast<std::size_t>(
      std::min<std::uint64_t>(cap, std::max<std::uint64_t>(src.size() * 4, 1 << 16))));
  std::size_t in_pos = 0;
  std::size_t produced = 0;
  while (true) {
    if (produced > declared) {
      fail_input(path, name,
                 "the declared uncompressed size " + std::to_string(declared) +
                     ", got more data (corrupt archive)");
    }
    if (zs.avail_in == 0 && in_pos < src.size()) {
      const std::size_t n = std::min(kZlibChunk, src.size() - in_pos);
      zs.next_in = const_cast<Bytef*>(src.data() + in_pos);
      zs.avail_in = static_cast<uInt>(n);
      in_pos += n;
    }
    if (produced == out.size()) {
      out.resize(static_cast<std::size_t>(std::min<std::uint64_t>(cap, out.size() * 2)));
    }
    const std::size_t room = std::min(kZlibChunk, out.size() - produced);
    zs.next_out = out.data() + produced;
    zs.avail_out = static_cast<uInt>(room);
    const int ret = inflate(&zs, Z_NO_FLUSH);
    produced += room - zs.avail_out;
    if (ret == Z_STREAM_END) break;
    if (ret == Z_BUF_ERROR && zs.avail_in == 0 && in_pos == src.size()) {
      bad_data("a stream that ends early (truncated)");
    }
    if (ret == Z_MEM_ERROR) throw std::bad_alloc();
    if (ret != Z_OK && ret != Z_BUF_ERROR) {
      bad_data(std::string("zlib error '") + (zs.msg != nullptr ? zs.msg : "unknown") + "'");
    }
  }
  if (produced != declared) {
    fail_input(path, name,
               "the declared uncompressed size " + std::to_string(declared) + ", got " +
                   std::to_string(produced) + " bytes (corrupt archive)");
  }
  out.resize(produced);
  return out;
}

// The uncompressed bytes of one member, CRC-checked: a view into the archive for a stored
// member, else a view of `owned`, which holds the inflated data.
Bytes extract(Bytes b, const ZipEntry& e, const std::string& path,
              std::vector<unsigned char>& owned) {
  if (e.flags & 1) fail_input(path, e.name, "an unencrypted member, got an encrypted one");
  const std::uint64_t lo = e.local_offset;
  if (!fits(lo, kLocalHeaderSize, b.size()) || le32(b, lo) != kLocalSig) {
    fail_input(path, e.name,
               "a local file header at offset " + std::to_string(lo) +
                   ", got none (corrupt or truncated archive)");
  }
  const std::uint64_t data_off = lo + kLocalHeaderSize + le16(b, lo + 26) + le16(b, lo + 28);
  if (!fits(data_off, e.comp_size, b.size())) {
    fail_input(path, e.name,
               std::to_string(e.comp_size) + " bytes of member data, got " +
                   std::to_string(data_off <= b.size() ? b.size() - data_off : 0) +
                   " (truncated archive)");
  }
  const Bytes src =
      b.subspan(static_cast<std::size_t>(data_off), static_cast<std::size_t>(e.comp_size));
  Bytes out;
  if (e.method == 0) {
    if (e.comp_size != e.uncomp_size) {
      fail_input(path, e.name,
                 "equal sizes for a stored member, got " + std::to_string(e.comp_size) +
                     " stored and " + std::to_string(e.uncomp_size) + " uncompressed");
    }
    out = src;
  } else if (e.method == 8) {
    owned = inflate_raw(src, e.uncomp_size, path, e.name);
    out = owned;
  } else {
    fail_input(path, e.name,
               "stored (method 0) or deflated (method 8) data, got compression method " +
                   std::to_string(e.method));
  }
  const std::uint32_t crc = crc32_of(out);
  if (crc != e.crc) {
    fail_input(path, e.name,
               "CRC-32 " + hex32(e.crc) + ", got " + hex32(crc) + " (corrupt archive)");
  }
  return out;
}

bool is_directory(const ZipEntry& e) { return !e.name.empty() && e.name.back() == '/'; }

std::string key_of(const ZipEntry& e) { return e.name.substr(0, e.name.size() - 4); }

// ---------------------------------------------------------------- writing

class ZipFile {
 public:
  explicit ZipFile(const std::string& path) : path_(path) {
    errno = 0;
    file_ = std::fopen(path.c_str(), "wb");
    if (file_ == nullptr) fail(errno);
  }
  ~ZipFile() {
    if (file_ != nullptr) {
      std::fclose(file_);
      std::remove(path_.c_str());  // only reached when writing failed part-way
    }
  }
  ZipFile(const ZipFile&) = delete;
  ZipFile& operator=(const ZipFile&) = delete;

  std::uint64_t offset() const { return offset_; }

  void put(Bytes bytes) {
    if (bytes.empty()) return;
    errno = 0;
    if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) fail(errno);
    offset_ += bytes.size();
  }

  void close() {
    std::FILE* f = file_;
    file_ = nullptr;
    errno = 0;
    if (std::fclose(f) != 0) {
      const int err = errno;
      std::remove(path_.c_str());
      fail(err);
    }
  }

 private:
  [[noreturn]] void fail(int err) const {
    fail_input(path_, "",
               std::string("a writable file (") + std::strerror(err != 0 ? err : EIO) + ")");
  }

  std::string path_;
  std::FILE* file_ = nullptr;
  std::uint64_t offset_ = 0;
};

void put_le(std::vector<unsigned char>& out, std::uint64_t v, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out.push_back(static_cast<unsigned char>(v >> (8 * i)));
}

std::vector<unsigned char> deflate_raw(Bytes in) {
  z_stream zs{};
  if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) !=
      Z_OK) {
    throw Error("zlib: deflateInit2 failed");
  }
  std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&zs, &deflateEnd);
  std::vector<unsigned char> out(deflateBound(&zs, in.size()) + 64);
  std::size_t in_pos = 0;
  std::size_t out_pos = 0;
  int ret = Z_OK;
  do {
    if (zs.avail_in == 0 && in_pos < in.size()) {
      const std::size_t n = std::min(kZlibChunk, in.size() - in_pos);
      zs.next_in = const_cast<Bytef*>(in.data() + in_pos);
      zs.avail_in = static_cast<uInt>(n);
      in_pos += n;
    }
    if (out_pos == out.size()) out.resize(out.size() * 2);
    const std::size_t room = std::min(kZlibChunk, out.size() - out_pos);
    zs.next_out = out.data() + out_pos;
    zs.avail_out = static_cast<uInt>(room);
    const bool last = in_pos == in.size();
    ret = deflate(&zs, last ? Z_FINISH : Z_NO_FLUSH);
    out_pos += room - zs.avail_out;
    if (ret == Z_STREAM_ERROR) throw Error("zlib: deflate failed");
  } while (ret != Z_STREAM_END);
  out.resize(out_pos);
  return out;
}

struct Written {
  std::string name;
  std::uint16_t flags = 0;
  std::uint16_t method = 0;
  std::uint32_t crc = 0;
  std::uint64_t comp_size = 0;
  std::uint64_t uncomp_size = 0;
  std::uint64_t offset = 0;
};

}  // namespace

// ---------------------------------------------------------------- public API

std::map<std::string, Array> read_npz(const std::string& path) {
  const std::vector<unsigned char> bytes = read_file_bytes(path);
  std::map<std::string, Array> out;
  for (const ZipEntry& e : list_entries(bytes, path)) {
    if (is_directory(e) || !ends_with(e.name, ".npy")) continue;
    const std::string key = key_of(e);
    if (out.count(key) != 0) fail_input(path, e.name, "unique member names, got a duplicate");
    std::vector<unsigned char> owned;
    out.emplace(key, parse_npy(extract(bytes, e, path, owned), path + ": " + key));
  }
  return out;
}

Array read_npz_array(const std::string& path, const std::string& key) {
  const std::vector<unsigned char> bytes = read_file_bytes(path);
  const std::vector<ZipEntry> entries = list_entries(bytes, path);
  for (const std::string& wanted : {key + ".npy", key}) {
    for (const ZipEntry& e : entries) {
      if (e.name == wanted && !is_directory(e)) {
        std::vector<unsigned char> owned;
        return parse_npy(extract(bytes, e, path, owned), path + ": " + key);
      }
    }
  }
  std::string keys;
  for (const ZipEntry& e : entries) {
    if (is_directory(e) || !ends_with(e.name, ".npy")) continue;
    keys += keys.empty() ? "" : ", ";
    keys += key_of(e);
  }
  fail_input(path, key,
             "an array named '" + key + "' in the archive, got " +
                 (keys.empty() ? std::string("no arrays") : "only the keys " + keys));
}

void write_npz(const std::string& path, const std::map<std::string, Array>& arrays, bool compress) {
  for (const auto& entry : arrays) {
    if (entry.first.empty() || entry.first.size() > kMax16 - 4) {
      fail_argument("write_npz", "arrays",
                    "keys of 1 to 65531 bytes, got one of " + std::to_string(entry.first.size()));
    }
  }
  ZipFile zip(path);
  std::vector<Written> written;
  std::vector<unsigned char> header;
  for (const auto& [key, array] : arrays) {
    Written w;
    w.name = key + ".npy";
    w.flags = std::any_of(w.name.begin(), w.name.end(),
                          [](char c) { return static_cast<unsigned char>(c) >= 0x80; })
                  ? 0x0800  // names are UTF-8
                  : 0;
    w.method = compress ? 8 : 0;
    w.offset = zip.offset();
    const std::vector<unsigned char> npy = encode_npy(array);
    w.crc = crc32_of(npy);
    w.uncomp_size = npy.size();
    std::vector<unsigned char> packed;
    if (compress) packed = deflate_raw(npy);
    const Bytes data = compress ? Bytes(packed) : Bytes(npy);
    w.comp_size = data.size();
    const bool zip64 = w.uncomp_size >= kMax32 || w.comp_size >= kMax32;

    header.clear();
    put_le(header, kLocalSig, 4);
    put_le(header, zip64 ? 45 : 20, 2);  // version needed to extract
    put_le(header, w.flags, 2);
    put_le(header, w.method, 2);
    put_le(header, 0, 2);  // time 00:00:00
    put_le(header, kDosDate1980, 2);
    put_le(header, w.crc, 4);
    put_le(header, zip64 ? kMax32 : w.comp_size, 4);
    put_le(header, zip64 ? kMax32 : w.uncomp_size, 4);
    put_le(header, w.name.size(), 2);
    put_le(header, zip64 ? 20 : 0, 2);
    header.insert(header.end(), w.name.begin(), w.name.end());
    if (zip64) {
      put_le(header, kZip64ExtraId, 2);
      put_le(header, 16, 2);
      put_le(header, w.uncomp_size, 8);
      put_le(header, w.comp_size, 8);
    }
    zip.put(header);
    zip.put(data);
    written.push_back(std::move(w));
  }

  const std::uint64_t cd_offset = zip.offset();
  for (const Written& w : written) {
    const bool big_uncomp = w.uncomp_size >= kMax32;
    const bool big_comp = w.comp_size >= kMax32;
    const bool big_offset = w.offset >= kMax32;
    const std::size_t extra =
        (big_uncomp || big_comp || big_offset) ? 4 + 8 * (big_uncomp + big_comp + big_offset) : 0;
    const unsigned version = extra != 0 ? 45 : 20;
    header.clear();
    put_le(header, kCentralSig, 4);
    put_le(header, (3u << 8) | version, 2);  // made by: Unix
    put_le(header, version, 2);
    put_le(header, w.flags, 2);
    put_le(header, w.method, 2);
    put_le(header, 0, 2);
    put_le(header, kDosDate1980, 2);
    put_le(header, w.crc, 4);
    put_le(header, big_comp ? kMax32 : w.comp_size, 4);
    put_le(header, big_uncomp ? kMax32 : w.uncomp_size, 4);
    put_le(header, w.name.size(), 2);
    put_le(header, extra, 2);
    put_le(header, 0, 2);               // comment length
    put_le(header, 0, 2);               // disk number start
    put_le(header, 0, 2);               // internal attributes
    put_le(header, 0100644u << 16, 4);  // external attributes: regular file, rw-r--r--
    put_le(header, big_offset ? kMax32 : w.offset, 4);
    header.insert(header.end(), w.name.begin(), w.name.end());
    if (extra != 0) {
      put_le(header, kZip64ExtraId, 2);
      put_le(header, extra - 4, 2);
      if (big_uncomp) put_le(header, w.uncomp_size, 8);
      if (big_comp) put_le(header, w.comp_size, 8);
      if (big_offset) put_le(header, w.offset, 8);
    }
    zip.put(header);
  }
  const std::uint64_t cd_size = zip.offset() - cd_offset;
  const std::uint64_t count = written.size();

  header.clear();
  if (count >= kMax16 || cd_size >= kMax32 || cd_offset >= kMax32) {
    const std::uint64_t z64 = zip.offset();
    put_le(header, kZip64EndSig, 4);
    put_le(header, kZip64EndSize - 12, 8);  // size of the rest of this record
    put_le(header, (3u << 8) | 45, 2);
    put_le(header, 45, 2);
    put_le(header, 0, 4);  // this disk
    put_le(header, 0, 4);  // disk with the central directory
    put_le(header, count, 8);
    put_le(header, count, 8);
    put_le(header, cd_size, 8);
    put_le(header, cd_offset, 8);
    put_le(header, kZip64LocatorSig, 4);
    put_le(header, 0, 4);
    put_le(header, z64, 8);
    put_le(header, 1, 4);  // total number of disks
  }
  put_le(header, kEndSig, 4);
  put_le(header, 0, 2);
  put_le(header, 0, 2);
  put_le(header, std::min<std::uint64_t>(count, kMax16), 2);
  put_le(header, std::min<std::uint64_t>(count, kMax16), 2);
  put_le(header, std::min<std::uint64_t>(cd_size, kMax32), 4);
  put_le(header, std::min<std::uint64_t>(cd_offset, kMax32), 4);
  put_le(header, 0, 2);  // comment length
  zip.put(header);
  zip.close();
}

}  // namespace logz::io
