#include "logz/io/npz.hpp"

#include <zip.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <set>
#include <span>
#include <type_traits>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/io/memory_archive.hpp"
#include "logz/io/npy.hpp"
#include "logz/io/output_file.hpp"
#include "npy_stream.hpp"

// Deflate levels in zip_set_file_compression and the error codes used here are libzip 1.7's.
#if LIBZIP_VERSION_MAJOR < 1 || (LIBZIP_VERSION_MAJOR == 1 && LIBZIP_VERSION_MINOR < 7)
#error "logz needs libzip 1.7 or newer (Debian's libzip-dev)"
#endif

namespace logz::io {
namespace {

// Deflate's densest code spends 2 bits on a 258-byte match: no stream inflates more than
// 1032-fold, so a member claiming more is forged and is refused before it is inflated.
constexpr std::uint64_t kMaxDeflateRatio = 1032;
constexpr int kDeflateLevel = 6;                                 // zlib's and Python's default
constexpr std::uint16_t kDosDate1980 = (0 << 9) | (1 << 5) | 1;  // 1980-01-01: reproducible bytes
constexpr zip_uint32_t kRegularFile644 = 0100644u << 16;
// An archive without members is its end-of-central-directory record alone (libzip removes,
// rather than writes, an archive left without members).
constexpr unsigned char kEmptyZip[22] = {'P', 'K', 5, 6};

std::string libzip_message(int code) {
  zip_error_t error;
  zip_error_init_with_code(&error, code);
  std::string message = zip_error_strerror(&error);
  zip_error_fini(&error);
  return message;
}

bool has_suffix(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_directory(const std::string& name) { return !name.empty() && name.back() == '/'; }

std::string key_of(const std::string& name) {
  return has_suffix(name, ".npy") ? name.substr(0, name.size() - 4) : name;
}

// ---------------------------------------------------------------- reading

struct Member {
  zip_uint64_t index = 0;
  std::string name;
  zip_stat_t stat{};
};

std::uint32_t little_endian_u32(const unsigned char* p) {
  return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
         static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
}

// The bytes before the archive in a file whose ZIP offsets count from the archive's own start
// (a self-extracting archive: a program, then the ZIP), found as Python's zipfile finds them:
// the end record's position less the central directory's size and offset. 0 when the file has
// no such bytes, no end record in its last 64 KiB, or ZIP64 offsets.
std::uint64_t bytes_before_archive(const std::string& path, std::uint64_t file_size) {
  constexpr std::uint64_t kEndRecord = 22, kMaxComment = 65535;
  if (file_size < kEndRecord) return 0;
  const std::uint64_t tail = std::min(file_size, kEndRecord + kMaxComment);
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"),
                                                          &std::fclose);
  std::vector<unsigned char> b(tail);
  if (f == nullptr || std::fseek(f.get(), static_cast<long>(file_size - tail), SEEK_SET) != 0 ||
      std::fread(b.data(), 1, b.size(), f.get()) != b.size())
    return 0;
  for (std::uint64_t i = tail - kEndRecord + 1; i-- > 0;) {
    if (b[i] != 'P' || b[i + 1] != 'K' || b[i + 2] != 5 || b[i + 3] != 6) continue;
    const std::uint64_t comment = b[i + 20] | static_cast<std::uint64_t>(b[i + 21]) << 8;
    if (i + kEndRecord + comment != tail) continue;  // a signature inside the comment
    const std::uint32_t size = little_endian_u32(&b[i + 12]),
                        offset = little_endian_u32(&b[i + 16]);
    if (offset == 0xffffffffu || size == 0xffffffffu) return 0;
    const std::uint64_t at = file_size - tail + i;
    return at >= std::uint64_t{size} + offset ? at - size - offset : 0;
  }
  return 0;
}

// What libzip's refusal of an existing, readable file says about the archive. libzip 1.7
// reports a central directory entry whose size or offset field says "in the ZIP64 extra field"
// (0xffffffff) without that field as ZIP_ER_NOENT, "No such file".
std::string unreadable_archive(int code) {
  switch (code) {
    case ZIP_ER_NOENT:
      return "a damaged one: a member's size or offset is marked as a ZIP64 value but its "
             "ZIP64 extra field is missing or short";
    case ZIP_ER_INCONS:
      return "a damaged one: its records disagree with each other or with the file's size (a "
             "size, offset or count beyond what the file can hold)";
    default:
      return "one libzip cannot open (" + libzip_message(code) + ")";
  }
}

// An archive opened read-only through libzip, with its members listed once.
class Archive {
 public:
  explicit Archive(const std::string& path) : path_(path), zip_(nullptr, &zip_discard) {
    const std::string start = first_bytes_and_size();
    int code = 0;
    // The archive numpy reads: Python's zipfile takes the last end record and counts offsets
    // from where its archive begins, after any bytes before it (another archive, a program);
    // libzip would take the first consistent end record, which may belong to other members.
    const std::uint64_t prefix = bytes_before_archive(path, file_size_);
    if (prefix > 0) {
      open_after_prefix(prefix);
      code = ZIP_ER_NOZIP;
    } else {
      zip_.reset(zip_open(path.c_str(), ZIP_RDONLY, &code));
    }
    if (zip_ == nullptr) {
      std::string got;
      if (start.empty()) {
        got = "an empty file";
      } else if (start == "\x93NUMPY") {
        got = "a .npy file, not an archive";
      } else if (code == ZIP_ER_NOZIP) {
        got =
            "no end-of-central-directory record libzip accepts (not a ZIP file, a truncated one, "
            "or one after other bytes that its offsets ignore)";
      } else {
        got = unreadable_archive(code);
      }
      fail_input(path, "", "a ZIP archive (.npz, ZIP64 records included), got " + got);
    }
    list_members();
  }

  const std::vector<Member>& members() const { return members_; }

  // The .npy image of member m, read straight from libzip's stream into an Array after its
  // sizes have been checked against what the archive can hold.
  Array read(const Member& m, const ShapeCheck& check = {}) const {
    return with_stream(m, check, [](const NpyStream& s) { return read_npy_stream(s); });
  }

  // The same, as float64 values into the storage `target` gives for the header's shape.
  void read_doubles(const Member& m, const ShapeCheck& check, const DoublesTarget& target) const {
    with_stream(m, check, [&](const NpyStream& s) {
      const NpyLayout layout = read_npy_layout(s);
      const DoublesPlace place = target(layout.shape);
      read_npy_doubles(s, layout, place.values, place.column_major);
      return 0;
    });
  }

 private:
  // body(stream) on the .npy image of member m as libzip inflates it, once its sizes have been
  // checked against what the archive can hold.
  template <class Body>
  std::invoke_result_t<Body, const NpyStream&> with_stream(const Member& m, const ShapeCheck& check,
                                                           Body&& body) const {
    const zip_stat_t& st = m.stat;
    if (st.encryption_method != ZIP_EM_NONE)
      fail_member(m, "an unencrypted member, got an encrypted one");
    if (st.comp_method != ZIP_CM_STORE && st.comp_method != ZIP_CM_DEFLATE) {
      fail_member(m, "stored (method 0) or deflated (method 8) data, got compression method " +
                         std::to_string(st.comp_method));
    }
    if (st.comp_size > file_size_) {
      fail_member(m, std::to_string(st.comp_size) + " compressed bytes within the archive's " +
                         std::to_string(file_size_) +
                         " bytes, got more than the archive holds (a damaged archive)");
    }
    if (st.comp_method == ZIP_CM_STORE && st.comp_size != st.size) {
      fail_member(m, "equal sizes for a stored member, got " + std::to_string(st.comp_size) +
                         " stored and " + std::to_string(st.size) +
                         " uncompressed (a damaged archive)");
    }
    if (st.comp_method == ZIP_CM_DEFLATE && st.size / kMaxDeflateRatio > st.comp_size) {
      fail_member(m, "an uncompressed size deflate can reach from " + std::to_string(st.comp_size) +
                         " bytes (at most " + std::to_string(kMaxDeflateRatio) +
                         " times as many), got " + std::to_string(st.size) + " (a forged size)");
    }
    const std::unique_ptr<zip_file_t, decltype(&zip_fclose)> file(
        zip_fopen_index(zip_.get(), m.index, 0), &zip_fclose);
    if (file == nullptr) {
      fail_member(m, "a member libzip can open, got '" + std::string(zip_strerror(zip_.get())) +
                         "' (corrupt archive)");
    }
    const ByteSource read = [&](std::span<std::byte> dst) -> std::size_t {
      const zip_int64_t got = zip_fread(file.get(), dst.data(), dst.size());
      if (got >= 0) return static_cast<std::size_t>(got);
      if (zip_error_code_zip(zip_file_get_error(file.get())) == ZIP_ER_CRC) {
        char crc[16];
        std::snprintf(crc, sizeof crc, "0x%08x", static_cast<unsigned>(st.crc));
        fail_member(m, std::string("data matching the CRC-32 ") + crc +
                           " the archive records, got data that do not (corrupt archive)");
      }
      fail_member(m, "valid member data, got '" + std::string(zip_file_strerror(file.get())) +
                         "' (corrupt or truncated archive)");
    };
    return body(NpyStream{st.size, read, path_ + ": " + key_of(m.name), "archive member", check});
  }

  [[noreturn]] void fail_member(const Member& m, const std::string& expectation) const {
    fail_input(path_, m.name, expectation);
  }

  // The archive that begins `prefix` bytes into the file; zip_ stays empty if libzip refuses it.
  void open_after_prefix(std::uint64_t prefix) {
    zip_error_t error;
    zip_error_init(&error);
    zip_source_t* source = zip_source_file_create(path_.c_str(), prefix, -1, &error);
    if (source != nullptr) {
      zip_.reset(zip_open_from_source(source, ZIP_RDONLY, &error));
      if (zip_ == nullptr) zip_source_free(source);
    }
    zip_error_fini(&error);
  }

  // The first bytes of the file, to say what it is if libzip cannot open it; sets file_size_.
  // An unreadable file is refused here, with the system's reason.
  std::string first_bytes_and_size() {
    const auto unreadable = [&](int err) {
      fail_input(path_, "",
                 std::string("a readable file (") + std::strerror(err != 0 ? err : EIO) + ")");
    };
    errno = 0;
    const std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path_.c_str(), "rb"),
                                                            &std::fclose);
    if (f == nullptr) unreadable(errno);
    char start[6];
    errno = 0;
    const std::size_t got = std::fread(start, 1, sizeof start, f.get());
    if (std::ferror(f.get())) unreadable(errno);  // a folder, for one
    if (std::fseek(f.get(), 0, SEEK_END) == 0) {
      const long end = std::ftell(f.get());
      if (end > 0) file_size_ = static_cast<std::uint64_t>(end);
    }
    return std::string(start, got);
  }

  // Every file member; a name present twice is refused (numpy.load would silently take the
  // last, a lookup by name the first).
  void list_members() {
    const zip_int64_t count = zip_get_num_entries(zip_.get(), 0);
    std::set<std::string> names;
    for (zip_int64_t i = 0; i < count; ++i) {
      Member m;
      m.index = static_cast<zip_uint64_t>(i);
      zip_stat_init(&m.stat);
      if (zip_stat_index(zip_.get(), m.index, 0, &m.stat) != 0 || m.stat.name == nullptr) {
        fail_input(
            path_, "member " + std::to_string(i + 1),
            "a readable directory entry, got '" + std::string(zip_strerror(zip_.get())) + "'");
      }
      m.name = m.stat.name;
      if (is_directory(m.name)) continue;
      if (!names.insert(m.name).second) {
        fail_input(path_, key_of(m.name),
                   "one member named '" + m.name + "', got two (numpy.load would take the last)");
      }
      members_.push_back(std::move(m));
    }
  }

  std::string path_;
  std::unique_ptr<zip_t, decltype(&zip_discard)> zip_;
  std::uint64_t file_size_ = 0;
  std::vector<Member> members_;
};

// The member "key.npy", else "key"; an InputError listing the keys present if neither is there.
const Member& member_named(const Archive& archive, const std::string& path,
                           const std::string& key) {
  for (const std::string& wanted : {key + ".npy", key}) {
    for (const Member& m : archive.members()) {
      if (m.name == wanted) return m;
    }
  }
  std::string keys;
  for (const Member& m : archive.members()) {
    if (!has_suffix(m.name, ".npy")) continue;
    keys += keys.empty() ? "" : ", ";
    keys += key_of(m.name);
  }
  fail_input(path, key,
             "an array named '" + key + "' in the archive, got " +
                 (keys.empty() ? std::string("no arrays") : "only the keys " + keys));
}

// ---------------------------------------------------------------- writing

// Discards the unfinished archive (libzip leaves path untouched) and fails naming path.
[[noreturn]] void fail_write(zip_t* zip, const std::string& path, const std::string& reason) {
  if (zip != nullptr) zip_discard(zip);
  fail_input(path, "", "a writable file (libzip: " + reason + ")");
}

// The bytes an in-memory archive holds after zip_close.
std::vector<unsigned char> source_bytes(zip_source_t* source, const std::string& path) {
  zip_stat_t st;
  zip_stat_init(&st);
  if (zip_source_stat(source, &st) != 0 || (st.valid & ZIP_STAT_SIZE) == 0 ||
      zip_source_open(source) != 0)
    fail_write(nullptr, path, zip_error_strerror(zip_source_error(source)));
  std::vector<unsigned char> bytes(st.size);
  const zip_int64_t n = zip_source_read(source, bytes.data(), bytes.size());
  zip_source_close(source);
  if (n < 0 || static_cast<zip_uint64_t>(n) != st.size)
    fail_write(nullptr, path, "reading the archive made in memory");
  return bytes;
}

}  // namespace

// ---------------------------------------------------------------- public API

std::map<std::string, Array> read_npz(const std::string& path) {
  if (is_memory_path(path)) return read_memory_archive(path);
  const Archive archive(path);
  std::map<std::string, Array> out;
  for (const Member& m : archive.members()) {
    if (has_suffix(m.name, ".npy")) out.emplace(key_of(m.name), archive.read(m));
  }
  return out;
}

Array read_npz_array(const std::string& path, const std::string& key, const ShapeCheck& check) {
  if (is_memory_path(path)) {
    Array a = read_memory_array(path, key);
    if (check) check(a.shape);
    return a;
  }
  const Archive archive(path);
  return archive.read(member_named(archive, path, key), check);
}

void read_npz_doubles(const std::string& path, const std::string& key, const ShapeCheck& check,
                      const DoublesTarget& target) {
  if (is_memory_path(path)) {
    // A front end's arrays are in memory already: read from their .npy image like a member.
    const std::vector<unsigned char> image = encode_npy(read_npz_array(path, key, check));
    std::size_t at = 0;
    const ByteSource read = [&](std::span<std::byte> dst) {
      const std::size_t n = std::min(dst.size(), image.size() - at);
      if (n > 0) std::memcpy(dst.data(), image.data() + at, n);
      at += n;
      return n;
    };
    const NpyStream s{image.size(), read, path + ": " + key, "array"};
    const NpyLayout layout = read_npy_layout(s);
    const DoublesPlace place = target(layout.shape);
    read_npy_doubles(s, layout, place.values, place.column_major);
    return;
  }
  const Archive archive(path);
  archive.read_doubles(member_named(archive, path, key), check, target);
}

void write_npz(const std::string& path, const std::map<std::string, Array>& arrays, bool compress) {
  // Everything is checked before the archive is opened, so a bad argument leaves no file.
  std::vector<std::vector<unsigned char>> images;  // .npy headers (whole images on big-endian)
  for (const auto& [key, array] : arrays) {
    if (key.empty() || key.size() > 0xffff - 4) {
      fail_argument("write_npz", "arrays",
                    "keys of 1 to 65531 bytes, got one of " + std::to_string(key.size()));
    }
    images.push_back(std::endian::native == std::endian::little ? encode_npy_header(array)
                                                                : encode_npy(array));
  }
  if (arrays.empty()) {
    write_file_bytes(path, kEmptyZip);
    return;
  }
  // The archive is made in memory, then written by the one writer (io/output_file.hpp): a file
  // complete or absent, never written through a link.
  zip_error_t open_error;
  zip_error_init(&open_error);
  const std::unique_ptr<zip_source_t, void (*)(zip_source_t*)> image(
      zip_source_buffer_create(nullptr, 0, 0, &open_error), &zip_source_free);
  zip_t* zip = image ? zip_open_from_source(image.get(), ZIP_TRUNCATE, &open_error) : nullptr;
  if (zip == nullptr) {
    const std::string reason = zip_error_strerror(&open_error);
    zip_error_fini(&open_error);
    fail_write(zip, path, reason);
  }
  zip_error_fini(&open_error);
  zip_source_keep(image.get());  // zip_close must not free what it wrote
  // libzip reads the members' bytes when zip_close writes the archive: they are served from
  // `images` and the arrays themselves, without a copy on a little-endian host.
  std::size_t i = 0;
  for (const auto& [key, array] : arrays) {
    std::vector<unsigned char>& image = images[i++];
    std::vector<zip_buffer_fragment_t> fragments = {{image.data(), image.size()}};
    const std::span<const std::byte> data = array.bytes();
    if (std::endian::native == std::endian::little && !data.empty()) {
      // libzip only reads the fragments of a buffer source (freep = 0 leaves them ours).
      fragments.push_back(
          {reinterpret_cast<zip_uint8_t*>(const_cast<std::byte*>(data.data())), data.size()});
    }
    zip_error_t error;
    zip_error_init(&error);
    zip_source_t* source =
        zip_source_buffer_fragment_create(fragments.data(), fragments.size(), 0, &error);
    if (source == nullptr) {
      const std::string reason = zip_error_strerror(&error);
      zip_error_fini(&error);
      fail_write(zip, path, reason);
    }
    zip_error_fini(&error);
    const std::string name = key + ".npy";
    const zip_int64_t index = zip_file_add(zip, name.c_str(), source, ZIP_FL_ENC_GUESS);
    if (index < 0) {
      zip_source_free(source);
      fail_write(zip, path, zip_strerror(zip));
    }
    const auto at = static_cast<zip_uint64_t>(index);
    if (zip_set_file_compression(zip, at, compress ? ZIP_CM_DEFLATE : ZIP_CM_STORE,
                                 compress ? kDeflateLevel : 0) != 0 ||
        zip_file_set_dostime(zip, at, 0, kDosDate1980, 0) != 0 ||
        zip_file_set_external_attributes(zip, at, 0, ZIP_OPSYS_UNIX, kRegularFile644) != 0) {
      fail_write(zip, path, zip_strerror(zip));
    }
  }
  if (zip_close(zip) != 0) fail_write(zip, path, zip_strerror(zip));
  write_output_file(path, source_bytes(image.get(), path));
}

}  // namespace logz::io
