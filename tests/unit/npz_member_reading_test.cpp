// Reading .npz members into Eigen (io/npz_eigen.hpp, io::read_npz_doubles): the values of every
// dtype, byte order and memory order; a member held once in memory while it is read (the peak
// resident memory of a child process), and one of the wrong shape refused from its header
// before its data are read; damaged ZIP64 records named as such, not as a missing file.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/io/memory_archive.hpp"
#include "logz/io/npz.hpp"
#include "logz/io/npz_eigen.hpp"

namespace {

namespace fs = std::filesystem;
using MemberBytes = std::vector<unsigned char>;

// A folder of the running test's own under the test tmpdir, emptied.
std::string member_test_dir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const fs::path dir =
      fs::path(::testing::TempDir()) /
      ("logz_npz_member_" + std::string(info->name()) + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

void put_member_le(MemberBytes& out, std::uint64_t v, int n) {
  for (int i = 0; i < n; ++i) out.push_back(static_cast<unsigned char>(v >> (8 * i)));
}

// A .npy header (magic, version 1.0, dict padded to 64 bytes) for a dict literal.
MemberBytes member_npy_header(const std::string& dict) {
  std::string header = dict;
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  MemberBytes out = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  put_member_le(out, header.size(), 2);
  out.insert(out.end(), header.begin(), header.end());
  return out;
}

// How the central directory of a one-member archive states the member's sizes.
enum class SizeFields { kPlain, kZip64MarkerWithoutExtra };

// Writes a stored one-member archive to path: the local header, `npy_head` and then
// `data_bytes` bytes produced by `data` in pieces (so that a large member is never held
// whole), the central directory and the end record.
void write_member_archive(const std::string& path, const std::string& name,
                          const MemberBytes& npy_head, std::uint64_t data_bytes,
                          const std::function<void(MemberBytes&, std::uint64_t)>& data,
                          SizeFields fields = SizeFields::kPlain) {
  const std::uint64_t size = npy_head.size() + data_bytes;
  // The CRC-32 first: one pass over the data, then another to write them.
  uLong crc = crc32(0L, npy_head.data(), static_cast<uInt>(npy_head.size()));
  MemberBytes piece;
  for (std::uint64_t at = 0; at < data_bytes; at += piece.size()) {
    data(piece, at);
    crc = crc32(crc, piece.data(), static_cast<uInt>(piece.size()));
  }
  std::ofstream out(path, std::ios::binary);
  const auto emit = [&](const MemberBytes& b) {
    out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  };
  MemberBytes local;
  put_member_le(local, 0x04034b50, 4);
  put_member_le(local, 20, 2);  // needed to extract
  put_member_le(local, 0, 2);   // flags
  put_member_le(local, 0, 2);   // stored
  put_member_le(local, 0, 4);   // time and date
  put_member_le(local, crc, 4);
  put_member_le(local, size, 4);
  put_member_le(local, size, 4);
  put_member_le(local, name.size(), 2);
  put_member_le(local, 0, 2);
  local.insert(local.end(), name.begin(), name.end());
  emit(local);
  emit(npy_head);
  for (std::uint64_t at = 0; at < data_bytes; at += piece.size()) {
    data(piece, at);
    emit(piece);
  }
  const std::uint64_t sized = fields == SizeFields::kPlain ? size : 0xffffffffu;
  MemberBytes cd;
  put_member_le(cd, 0x02014b50, 4);
  put_member_le(cd, 45, 2);  // made by
  put_member_le(cd, 20, 2);  // needed to extract
  put_member_le(cd, 0, 2);
  put_member_le(cd, 0, 2);
  put_member_le(cd, 0, 4);
  put_member_le(cd, crc, 4);
  put_member_le(cd, sized, 4);
  put_member_le(cd, sized, 4);
  put_member_le(cd, name.size(), 2);
  put_member_le(cd, 0, 2);  // no extra field, whatever the sizes say
  put_member_le(cd, 0, 2);  // comment
  put_member_le(cd, 0, 2);  // disk
  put_member_le(cd, 0, 2);  // internal attributes
  put_member_le(cd, 0, 4);  // external attributes
  put_member_le(cd, 0, 4);  // local header offset
  cd.insert(cd.end(), name.begin(), name.end());
  MemberBytes end;
  put_member_le(end, 0x06054b50, 4);
  put_member_le(end, 0, 4);
  put_member_le(end, 1, 2);
  put_member_le(end, 1, 2);
  put_member_le(end, cd.size(), 4);
  put_member_le(end, local.size() + size, 4);
  put_member_le(end, 0, 2);
  emit(cd);
  emit(end);
}

// A small archive of one member: the header and the data bytes as given.
std::string small_member_archive(const std::string& dir, const std::string& file,
                                 const std::string& dict, const MemberBytes& data,
                                 SizeFields fields = SizeFields::kPlain) {
  const std::string path = dir + "/" + file;
  write_member_archive(
      path, "x.npy", member_npy_header(dict), data.size(),
      [&](MemberBytes& piece, std::uint64_t) { piece = data; }, fields);
  return path;
}

template <typename T>
MemberBytes member_values(const std::vector<T>& values, bool big_endian = false) {
  MemberBytes out;
  for (const T v : values) {
    unsigned char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));  // the test host is little-endian
    if (big_endian) std::reverse(b, b + sizeof(T));
    out.insert(out.end(), b, b + sizeof(T));
  }
  return out;
}

// What a child process saw running f: the growth of its peak resident memory over what it held
// when f began, and f's InputError message ("" if none).
struct ChildRun {
  long long peak_growth_bytes = -1;
  std::string error;
};

ChildRun run_in_child(const std::function<void()>& f) {
  struct Report {
    long long growth;
    char error[512];
  };
  int fds[2];
  if (::pipe(fds) != 0) return {};
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    Report report{};
    rusage before{}, after{};
    ::getrusage(RUSAGE_SELF, &before);
    try {
      f();
    } catch (const std::exception& e) {
      std::strncpy(report.error, e.what(), sizeof report.error - 1);
    }
    ::getrusage(RUSAGE_SELF, &after);
    report.growth = (after.ru_maxrss - before.ru_maxrss) * 1024LL;  // ru_maxrss: KiB
    const bool sent =
        ::write(fds[1], &report, sizeof report) == static_cast<ssize_t>(sizeof report);
    ::_exit(sent ? 0 : 1);
  }
  ::close(fds[1]);
  Report report{};
  const bool got = ::read(fds[0], &report, sizeof report) == static_cast<ssize_t>(sizeof report);
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!got) return {};
  return {report.growth, report.error};
}

// A float64 member of n elements of shape `shape` (as the header spells it), values 0, 1, ...
std::string large_member_archive(const std::string& dir, std::uint64_t n,
                                 const std::string& shape) {
  const std::string path = dir + "/large.npz";
  constexpr std::uint64_t kPiece = 1 << 16;  // values per piece
  write_member_archive(
      path, "v.npy",
      member_npy_header("{'descr': '<f8', 'fortran_order': False, 'shape': " + shape + ", }"),
      n * 8, [&](MemberBytes& piece, std::uint64_t at) {
        const std::uint64_t first = at / 8, count = std::min(kPiece, n - first);
        std::vector<double> values(count);
        for (std::uint64_t i = 0; i < count; ++i) values[i] = static_cast<double>(first + i);
        piece = member_values(values);
      });
  return path;
}

TEST(NpzMemberReading, MatricesAndVectorsOfEveryDtypeAndOrder) {
  const std::string dir = member_test_dir();
  // The 2 x 3 matrix [[0, 1, 2], [3, 4, 5]] as numpy would write it in each layout.
  const Eigen::MatrixXd expected = (Eigen::MatrixXd(2, 3) << 0, 1, 2, 3, 4, 5).finished();
  struct Layout {
    std::string descr;
    bool fortran;
    MemberBytes data;
  };
  const std::vector<Layout> layouts = {
      {"<f8", false, member_values<double>({0, 1, 2, 3, 4, 5})},
      {"<f8", true, member_values<double>({0, 3, 1, 4, 2, 5})},
      {">f8", false, member_values<double>({0, 1, 2, 3, 4, 5}, true)},
      {"<f4", true, member_values<float>({0, 3, 1, 4, 2, 5})},
      {">i2", false, member_values<std::int16_t>({0, 1, 2, 3, 4, 5}, true)},
      {"|u1", true, member_values<std::uint8_t>({0, 3, 1, 4, 2, 5})},
      {"<u8", false, member_values<std::uint64_t>({0, 1, 2, 3, 4, 5})},
  };
  for (std::size_t i = 0; i < layouts.size(); ++i) {
    const Layout& l = layouts[i];
    SCOPED_TRACE(l.descr + (l.fortran ? " Fortran order" : " C order"));
    const std::string p = small_member_archive(
        dir, "m" + std::to_string(i) + ".npz",
        "{'descr': '" + l.descr + "', 'fortran_order': " + (l.fortran ? "True" : "False") +
            ", 'shape': (2, 3), }",
        l.data);
    EXPECT_EQ(logz::io::read_npz_matrix(p, "x", "2 x 3"), expected);
  }
  // A vector, and an n x 1 column; bools as 0 and 1.
  const std::string v = small_member_archive(
      dir, "v.npz", "{'descr': '>i4', 'fortran_order': False, 'shape': (3,), }",
      member_values<std::int32_t>({-7, 0, 9}, true));
  EXPECT_EQ(logz::io::read_npz_vector(v, "x", "3"), Eigen::Vector3d(-7, 0, 9));
  const std::string b = small_member_archive(
      dir, "b.npz", "{'descr': '|b1', 'fortran_order': True, 'shape': (3, 1), }", {1, 0, 2});
  EXPECT_EQ(logz::io::read_npz_vector(b, "x", "3"), Eigen::Vector3d(1, 0, 1));
  // Too few data bytes: the member is refused as truncated, naming it.
  const std::string cut = small_member_archive(
      dir, "cut.npz", "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }",
      member_values<double>({0, 1, 2, 3, 4}));
  try {
    logz::io::read_npz_matrix(cut, "x", "2 x 3");
    ADD_FAILURE() << "a truncated member was read";
  } catch (const logz::InputError& e) {
    EXPECT_NE(std::string(e.what()).find(cut + ": x: data"), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

// Arrays a front end holds in memory ("memory:NAME.npz") are read as members are.
TEST(NpzMemberReading, HeldArraysAreReadAsMembersAre) {
  const logz::io::MemoryArchive held(
      "held.npz", {{"m", logz::io::Array{{2, 3}, std::vector<float>{0, 1, 2, 3, 4, 5}}},
                   {"v", logz::io::Array{{3}, {7.0, 8.0, 9.0}}}});
  EXPECT_EQ(logz::io::read_npz_matrix(held.path(), "m", "2 x 3"),
            (Eigen::MatrixXd(2, 3) << 0, 1, 2, 3, 4, 5).finished());
  EXPECT_EQ(logz::io::read_npz_vector(held.path(), "v", "3"), Eigen::Vector3d(7, 8, 9));
  EXPECT_THROW(logz::io::read_npz_vector(held.path(), "m", "3"), logz::InputError);  // 2 x 3
}

// A 128 MiB float64 member read into an Eigen vector and an Eigen matrix: the reading process's
// peak memory grows by about the member's size, where reading it into an Array and copying
// that into Eigen grew it twice over (a 1 GiB member peaked at 2.06 GB).
TEST(NpzMemberReading, AMemberIsHeldOnceWhileItIsRead) {
  const std::string dir = member_test_dir();
  constexpr std::uint64_t n = std::uint64_t{1} << 24;  // 16 Mi doubles: 128 MiB
  constexpr long long bytes = static_cast<long long>(n * 8);
  // What holding the result alone costs this process: the bytes, or several times them under a
  // sanitizer that shadows memory (ThreadSanitizer).
  const ChildRun held = run_in_child([&] {
    Eigen::VectorXd v = Eigen::VectorXd::LinSpaced(static_cast<Eigen::Index>(n), 0.0, 1.0);
    if (v(1) == v(0)) throw std::runtime_error("not filled");
  });
  ASSERT_EQ(held.error, "");
  const long long once = std::max(held.peak_growth_bytes, bytes);
  const std::string vector_file = large_member_archive(dir, n, "(16777216,)");
  const ChildRun vector = run_in_child([&] {
    const Eigen::VectorXd v = logz::io::read_npz_vector(vector_file, "v", "N");
    if (v.size() != static_cast<Eigen::Index>(n) || v(12345) != 12345.0 ||
        v(n - 1) != static_cast<double>(n - 1))
      throw std::runtime_error("wrong values");
  });
  EXPECT_EQ(vector.error, "");
  EXPECT_GT(vector.peak_growth_bytes, bytes * 9 / 10);  // it was read
  EXPECT_LT(vector.peak_growth_bytes, once * 5 / 4)
      << "peak growth " << vector.peak_growth_bytes << ", " << once << " for the result alone";
  fs::remove(vector_file);
  const std::string matrix_file = large_member_archive(dir, n, "(4096, 4096)");
  const ChildRun matrix = run_in_child([&] {
    const Eigen::MatrixXd m = logz::io::read_npz_matrix(matrix_file, "v", "R x C");
    if (m.rows() != 4096 || m(2, 5) != 2 * 4096 + 5) throw std::runtime_error("wrong values");
  });
  EXPECT_EQ(matrix.error, "");
  EXPECT_LT(matrix.peak_growth_bytes, once * 5 / 4)
      << "peak growth " << matrix.peak_growth_bytes << ", " << once << " for the result alone";
  fs::remove_all(dir);
}

// A reader that knows the length it needs refuses a member of another length from the
// header's shape: nothing is allocated for the data, and a member whose data are damaged (its
// CRC-32 fails) is refused for its shape, since its data are never read.
TEST(NpzMemberReading, AMemberOfTheWrongLengthIsRefusedBeforeItsDataAreRead) {
  const std::string dir = member_test_dir();
  constexpr std::uint64_t n = std::uint64_t{1} << 24;
  const std::string file = large_member_archive(dir, n, "(16777216,)");
  const auto ten_values = [&](const std::vector<std::size_t>& shape) {
    if (shape[0] != 10)
      logz::fail_input(file, "v", "one value per unit (10), got " + std::to_string(shape[0]));
  };
  const ChildRun refused =
      run_in_child([&] { logz::io::read_npz_vector(file, "v", "N", ten_values); });
  EXPECT_EQ(refused.error, file + ": v: expected one value per unit (10), got 16777216");
  EXPECT_LT(refused.peak_growth_bytes, 16LL << 20) << "peak growth " << refused.peak_growth_bytes;
  fs::remove(file);
  // Data bytes flipped after the CRC-32 was taken: read, they would fail it.
  const std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }";
  const std::string damaged =
      small_member_archive(dir, "damaged.npz", header, member_values<double>({1, 2, 3, 4}));
  std::fstream f(damaged, std::ios::in | std::ios::out | std::ios::binary);
  // The local header (30 bytes), the name, the .npy header, the first value.
  f.seekp(static_cast<std::streamoff>(30 + 5 + member_npy_header(header).size() + 8));
  f.put('\x55');
  f.close();
  const auto three_values = [&](const std::vector<std::size_t>& shape) {
    if (shape[0] != 3) logz::fail_input(damaged, "x", "3 values, got " + std::to_string(shape[0]));
  };
  EXPECT_THROW(logz::io::read_npz_vector(damaged, "x", "4"), logz::InputError);  // the CRC fails
  try {
    logz::io::read_npz_vector(damaged, "x", "3", three_values);
    ADD_FAILURE() << "a member of 4 values was read as 3";
  } catch (const logz::InputError& e) {
    EXPECT_EQ(std::string(e.what()), damaged + ": x: expected 3 values, got 4");
  }
  fs::remove_all(dir);
}

// A central directory entry whose sizes say "in the ZIP64 extra field" (0xffffffff) without
// that field: libzip calls it "No such file"; the message says what is wrong with the archive.
TEST(NpzMemberReading, AZip64SizeWithoutItsExtraFieldIsADamagedArchive) {
  const std::string dir = member_test_dir();
  const std::string p = small_member_archive(
      dir, "no_extra.npz", "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }",
      member_values<double>({1}), SizeFields::kZip64MarkerWithoutExtra);
  try {
    logz::io::read_npz(p);
    ADD_FAILURE() << "a damaged archive was read";
  } catch (const logz::InputError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.find("No such file"), std::string::npos) << message;
    EXPECT_NE(message.find(p + ": expected a ZIP archive"), std::string::npos) << message;
    EXPECT_NE(message.find("a damaged one"), std::string::npos) << message;
    EXPECT_NE(message.find("ZIP64 extra field is missing"), std::string::npos) << message;
  }
  fs::remove_all(dir);
}

}  // namespace
