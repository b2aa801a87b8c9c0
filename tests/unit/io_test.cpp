// Unit tests for logz::io: .npy/.npz round trips, hand-built .npy images of every supported
// dtype, byte order and memory order, malformed files (each must raise InputError naming the
// file, never crash) and text/.npy number lists.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/io/array.hpp"
#include "logz/io/npy.hpp"
#include "logz/io/npy_columns.hpp"
#include "logz/io/npz.hpp"
#include "logz/io/npz_eigen.hpp"
#include "logz/io/number_list.hpp"

namespace {

using logz::InputError;
using logz::io::Array;
using logz::io::Dtype;
using Bytes = std::vector<unsigned char>;

namespace fs = std::filesystem;

// A fresh directory per test under ::testing::TempDir(), removed afterwards.
class IoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    dir_ = fs::path(::testing::TempDir()) /
           ("logz_io_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  std::string write(const std::string& name, const Bytes& bytes) const {
    const std::string p = path(name);
    std::ofstream out(p, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
    return p;
  }

  std::string write_text(const std::string& name, const std::string& text) const {
    return write(name, Bytes(text.begin(), text.end()));
  }

  fs::path dir_;
};

Bytes read_all(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Runs f, which must throw InputError whose message contains every one of parts.
void expect_input_error(const std::function<void()>& f, const std::vector<std::string>& parts) {
  try {
    f();
    ADD_FAILURE() << "no InputError thrown";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    for (const std::string& part : parts) {
      EXPECT_NE(msg.find(part), std::string::npos) << "'" << part << "' not in: " << msg;
    }
    EXPECT_EQ(msg.find('\n'), std::string::npos) << "multi-line message: " << msg;
  }
}

// A .npy image with the given header dict literal and raw data bytes.
Bytes make_npy(const std::string& dict, const Bytes& data, int major = 1) {
  const std::size_t prefix = major == 1 ? 10 : 12;
  std::string header = dict;
  while ((prefix + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  Bytes out = {0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<unsigned char>(major), 0};
  for (std::size_t i = 0; i < prefix - 8; ++i)
    out.push_back(static_cast<unsigned char>(header.size() >> (8 * i)));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

template <typename T>
Bytes raw_bytes(const std::vector<T>& values, bool big_endian = false) {
  Bytes out;
  for (T v : values) {
    unsigned char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));  // the test host is little-endian (checked below)
    if (big_endian) std::reverse(b, b + sizeof(T));
    out.insert(out.end(), b, b + sizeof(T));
  }
  return out;
}

void put_le(Bytes& out, std::uint64_t v, int n) {
  for (int i = 0; i < n; ++i) out.push_back(static_cast<unsigned char>(v >> (8 * i)));
}

// Bitwise CRC-32 (the ZIP polynomial), so that the test needs no zlib of its own.
std::uint32_t crc_of(const Bytes& b) {
  std::uint32_t crc = 0xffffffffu;
  for (unsigned char byte : b) {
    crc ^= byte;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

Array sample_matrix() {
  return Array{{4, 3},
               {1.5, -2.25, 0.0, 1e-300, -1e300, 3.0, std::numeric_limits<double>::denorm_min(),
                std::numeric_limits<double>::max(), -0.5, 42.0, 7.125, -1.0}};
}

// ---------------------------------------------------------------- Array

TEST(ArrayTest, ShapeAccessors) {
  const Array m = sample_matrix();
  EXPECT_EQ(m.size(), 12u);
  EXPECT_EQ(m.rows(), 4u);
  EXPECT_EQ(m.cols(), 3u);
  const Array v{{5}, {1, 2, 3, 4, 5}};
  EXPECT_EQ(v.rows(), 5u);
  EXPECT_EQ(v.cols(), 1u);
  const Array s{{}, {2.0}};
  EXPECT_EQ(s.size(), 1u);
  EXPECT_EQ(s.rows(), 1u);
  EXPECT_EQ(s.cols(), 1u);
  EXPECT_EQ(logz::io::shape_to_string(m.shape), "4 x 3");
  EXPECT_EQ(logz::io::shape_to_string(s.shape), "scalar");
}

TEST(ArrayTest, KeepsItsDtype) {
  EXPECT_EQ((Array{{3}, {1, 2, 3}}).dtype(), Dtype::float64);  // braced numbers: float64
  const Array u{{2}, std::vector<std::uint8_t>{7, 255}};
  EXPECT_EQ(u.dtype(), Dtype::uint8);
  EXPECT_EQ(u.elements<std::uint8_t>(), (std::vector<std::uint8_t>{7, 255}));
  EXPECT_THROW(u.doubles(), logz::InvalidArgument);
  EXPECT_EQ(u.to_doubles(), (std::vector<double>{7, 255}));
  EXPECT_NE(u, (Array{{2}, {7, 255}}));  // equal values of another dtype: another array
  const Array b{{2}, std::vector<logz::io::Bool>{{1}, {0}}};
  EXPECT_EQ(b.dtype(), Dtype::boolean);
  EXPECT_EQ(b.to_doubles(), (std::vector<double>{1, 0}));
  const Array big{{1}, std::vector<std::int64_t>{(1LL << 53) + 1}};
  EXPECT_EQ(big.to_doubles()[0], std::ldexp(1, 53));  // rounded to the nearest double
  const Array z = Array::zeros(Dtype::int32, {2, 3});
  EXPECT_EQ(z, (Array{{2, 3}, std::vector<std::int32_t>(6)}));
  EXPECT_EQ(logz::io::dtype_name(Dtype::boolean), "bool");
  EXPECT_EQ(logz::io::dtype_name(Dtype::float32), "float32");
  EXPECT_EQ(logz::io::dtype_size(Dtype::int16), 2u);
  EXPECT_EQ(logz::io::dtype_size(Dtype::uint64), 8u);
}

TEST(ArrayTest, ToFloat64MovesAFloat64ArrayAndConvertsOthers) {
  Array f{{3}, {1.5, 2.5, 3.5}};
  const double* storage = f.doubles().data();
  const Array moved = std::move(f).to_float64();
  EXPECT_EQ(moved.doubles().data(), storage);  // the same buffer: no copy, no conversion
  EXPECT_EQ(moved, (Array{{3}, {1.5, 2.5, 3.5}}));
  const Array converted = Array{{2}, std::vector<float>{0.5f, -1.0f}}.to_float64();
  EXPECT_EQ(converted, (Array{{2}, {0.5, -1.0}}));
}

// ---------------------------------------------------------------- .npy

TEST_F(IoTest, NpyRoundTrips) {
  ASSERT_EQ(std::endian::native, std::endian::little);
  const std::vector<Array> arrays = {
      sample_matrix(),
      Array{{}, {3.25}},
      Array{{5}, {1, 2, 3, 4, 5}},
      Array{{2, 3, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}},
      Array{{0, 3}, {}},
      Array{{0}, {}},
  };
  for (std::size_t i = 0; i < arrays.size(); ++i) {
    const std::string p = path("a" + std::to_string(i) + ".npy");
    logz::io::write_npy(p, arrays[i]);
    const Array back = logz::io::read_npy(p);
    EXPECT_EQ(back.shape, arrays[i].shape) << i;
    EXPECT_EQ(back.doubles(), arrays[i].doubles()) << i;
  }
}

TEST(NpyTest, EncodeMatchesNumpyLayout) {
  const Bytes b = logz::io::encode_npy(Array{{3}, {1, 2, 3}});
  ASSERT_GE(b.size(), 10u);
  EXPECT_EQ(std::memcmp(b.data(), "\x93NUMPY\x01\x00", 8), 0);
  const std::size_t hlen = b[8] | (b[9] << 8);
  EXPECT_EQ((10 + hlen) % 64, 0u);
  const std::string header(b.begin() + 10, b.begin() + 10 + hlen);
  EXPECT_EQ(header.back(), '\n');
  EXPECT_EQ(header.rfind("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", 0), 0u);
  EXPECT_EQ(b.size(), 10 + hlen + 3 * 8);
  const Bytes m = logz::io::encode_npy(Array{{2, 3}, {1, 2, 3, 4, 5, 6}});
  EXPECT_NE(std::string(m.begin(), m.end()).find("'shape': (2, 3), }"), std::string::npos);
  const Bytes s = logz::io::encode_npy(Array{{}, {1}});
  EXPECT_NE(std::string(s.begin(), s.end()).find("'shape': (), }"), std::string::npos);
}

// Every dtype is written as itself, with NumPy's descriptor, and read back unchanged.
TEST_F(IoTest, NpyRoundTripsEveryDtype) {
  using logz::io::Bool;
  const std::vector<std::pair<Array, std::string>> cases = {
      {Array{{2}, {1.5, -3.0}}, "'<f8'"},
      {Array{{2}, std::vector<float>{1.5f, -3.0f}}, "'<f4'"},
      {Array{{3}, std::vector<std::int64_t>{-(1LL << 62), 0, 5}}, "'<i8'"},
      {Array{{1, 2}, std::vector<std::int32_t>{-7, 1 << 30}}, "'<i4'"},
      {Array{{2}, std::vector<std::int16_t>{-300, 300}}, "'<i2'"},
      {Array{{2}, std::vector<std::int8_t>{-128, 127}}, "'|i1'"},
      {Array{{1}, std::vector<std::uint64_t>{1ULL << 63}}, "'<u8'"},
      {Array{{1}, std::vector<std::uint32_t>{4294967295u}}, "'<u4'"},
      {Array{{1}, std::vector<std::uint16_t>{65535}}, "'<u2'"},
      {Array{{2, 2}, std::vector<std::uint8_t>{0, 1, 128, 255}}, "'|u1'"},
      {Array{{3}, std::vector<Bool>{{1}, {0}, {1}}}, "'|b1'"},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& [array, descr] = cases[i];
    const Bytes b = logz::io::encode_npy(array);
    EXPECT_NE(std::string(b.begin(), b.end()).find("'descr': " + descr), std::string::npos)
        << descr;
    const std::string p = path("d" + std::to_string(i) + ".npy");
    logz::io::write_npy(p, array);
    EXPECT_EQ(logz::io::read_npy(p), array) << descr;
  }
}

TEST(NpyTest, NonZeroBoolBytesReadAsTrue) {
  const Bytes b =
      make_npy("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }", Bytes{0, 2, 255});
  EXPECT_EQ(logz::io::parse_npy(b, "b.npy"),
            (Array{{3}, std::vector<logz::io::Bool>{{0}, {1}, {1}}}));
}

// NumPy's header parser keeps the last of repeated keys; a reader keeping the first would see
// another array, so the header is refused.
TEST(NpyTest, RepeatedHeaderKeyIsRefused) {
  const Bytes b =
      make_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), 'shape': (1,), }",
               raw_bytes<double>({1, 2}));
  expect_input_error([&] { logz::io::parse_npy(b, "rep.npy"); }, {"rep.npy", "shape", "twice"});
  const Bytes d = make_npy(
      "{'descr': '<f8', 'descr': '<f4', 'fortran_order': False, "
      "'shape': (1,), }",
      raw_bytes<double>({1}));
  expect_input_error([&] { logz::io::parse_npy(d, "rep.npy"); }, {"rep.npy", "descr", "twice"});
}

// A shape claiming 10^12 elements in a file of 16 data bytes is refused from the header alone:
// allocating its 8 TB first would throw std::bad_alloc, not InputError.
TEST_F(IoTest, NpyShapeClaimingMoreThanTheFileIsRefusedBeforeAllocating) {
  const std::string p =
      write("claims.npy",
            make_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000,), }",
                     raw_bytes<double>({1, 2})));
  expect_input_error([&] { logz::io::read_npy(p); },
                     {p + ": data: expected", "8000000000000 bytes", "got 16 bytes"});
  // A header length of 4 GiB in a version 2.0 file of 100 bytes.
  Bytes long_header(100, ' ');
  const Bytes prefix = {0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0, 0xff, 0xff, 0xff, 0xff};
  std::copy(prefix.begin(), prefix.end(), long_header.begin());
  const std::string q = write("long_header.npy", long_header);
  expect_input_error([&] { logz::io::read_npy(q); }, {q, "header", "4294967295", "truncated"});
}

TEST(NpyTest, EncodeRejectsInconsistentArray) {
  EXPECT_THROW(logz::io::encode_npy(Array{{2, 2}, {1, 2, 3}}), logz::InvalidArgument);
}

TEST(NpyTest, Float32) {
  const Bytes b = make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }",
                           raw_bytes<float>({1.5f, -2.25f, 0.1f}));
  const Array a = logz::io::parse_npy(b, "f.npy");
  ASSERT_EQ(a.shape, (std::vector<std::size_t>{3}));
  EXPECT_EQ(a.dtype(), Dtype::float32);
  EXPECT_EQ(a.elements<float>(), (std::vector<float>{1.5f, -2.25f, 0.1f}));
  EXPECT_EQ(a.to_doubles(), (std::vector<double>{1.5, -2.25, static_cast<double>(0.1f)}));
}

TEST(NpyTest, Int64AndOtherIntegers) {
  const Bytes i8 = make_npy("{'descr': '<i8', 'fortran_order': False, 'shape': (2, 2), }",
                            raw_bytes<std::int64_t>({-7, 0, 1LL << 40, -(1LL << 50)}));
  const Array a = logz::io::parse_npy(i8, "i.npy");
  ASSERT_EQ(a.shape, (std::vector<std::size_t>{2, 2}));
  EXPECT_EQ(a.elements<std::int64_t>(),
            (std::vector<std::int64_t>{-7, 0, 1LL << 40, -(1LL << 50)}));
  EXPECT_EQ(a.to_doubles(), (std::vector<double>{-7, 0, std::ldexp(1, 40), -std::ldexp(1, 50)}));

  struct Case {
    std::string descr;
    Bytes data;
    std::vector<double> want;
    Dtype dtype;
  };
  const std::vector<Case> cases = {
      {"|i1", raw_bytes<std::int8_t>({-128, 127, -1}), {-128, 127, -1}, Dtype::int8},
      {"|u1", raw_bytes<std::uint8_t>({0, 255, 7}), {0, 255, 7}, Dtype::uint8},
      {"<i2", raw_bytes<std::int16_t>({-32768, 1, 300}), {-32768, 1, 300}, Dtype::int16},
      {">i2", raw_bytes<std::int16_t>({-32768, 1, 300}, true), {-32768, 1, 300}, Dtype::int16},
      {"<u2", raw_bytes<std::uint16_t>({65535, 0, 2}), {65535, 0, 2}, Dtype::uint16},
      {">i4", raw_bytes<std::int32_t>({-5, 1 << 30, 9}, true), {-5, 1 << 30, 9}, Dtype::int32},
      {"<u4", raw_bytes<std::uint32_t>({4294967295u, 0, 1}), {4294967295.0, 0, 1}, Dtype::uint32},
      {">u8",
       raw_bytes<std::uint64_t>({1ULL << 63, 3, 0}, true),
       {std::ldexp(1, 63), 3, 0},
       Dtype::uint64},
      {">f4", raw_bytes<float>({-0.5f, 2.0f, 8.0f}, true), {-0.5, 2, 8}, Dtype::float32},
  };
  for (const Case& c : cases) {
    const Bytes b =
        make_npy("{'descr': '" + c.descr + "', 'fortran_order': False, 'shape': (3,), }", c.data);
    const Array x = logz::io::parse_npy(b, "x.npy");
    EXPECT_EQ(x.dtype(), c.dtype) << c.descr;
    EXPECT_EQ(x.to_doubles(), c.want) << c.descr;
  }
}

TEST(NpyTest, BigEndianFloat64) {
  const Bytes b = make_npy("{'descr': '>f8', 'fortran_order': False, 'shape': (2,), }",
                           raw_bytes<double>({3.141592653589793, -1e-10}, true));
  EXPECT_EQ(logz::io::parse_npy(b, "be.npy").doubles(),
            (std::vector<double>{3.141592653589793, -1e-10}));
}

TEST(NpyTest, FortranOrder2x3) {
  // [[1, 2, 3], [4, 5, 6]] stored column by column.
  const Bytes b = make_npy("{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }",
                           raw_bytes<double>({1, 4, 2, 5, 3, 6}));
  const Array a = logz::io::parse_npy(b, "f.npy");
  ASSERT_EQ(a.shape, (std::vector<std::size_t>{2, 3}));
  EXPECT_EQ(a.doubles(), (std::vector<double>{1, 2, 3, 4, 5, 6}));
}

TEST(NpyTest, FortranOrder3D) {
  const std::size_t d0 = 2, d1 = 3, d2 = 4;
  std::vector<std::int32_t> f(d0 * d1 * d2);
  std::vector<double> want(f.size());
  for (std::size_t i = 0; i < d0; ++i) {
    for (std::size_t j = 0; j < d1; ++j) {
      for (std::size_t k = 0; k < d2; ++k) {
        const int v = static_cast<int>(100 * i + 10 * j + k);
        f[i + d0 * (j + d1 * k)] = v;
        want[(i * d1 + j) * d2 + k] = v;
      }
    }
  }
  const Bytes b =
      make_npy("{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3, 4), }", raw_bytes(f));
  const Array a = logz::io::parse_npy(b, "f3.npy");
  EXPECT_EQ(a.dtype(), Dtype::int32);
  EXPECT_EQ(a.to_doubles(), want);
}

TEST(NpyTest, Bool) {
  const Bytes b =
      make_npy("{'descr': '|b1', 'fortran_order': False, 'shape': (4,), }", Bytes{1, 0, 0, 1});
  const Array a = logz::io::parse_npy(b, "b.npy");
  EXPECT_EQ(a.dtype(), Dtype::boolean);
  EXPECT_EQ(a.to_doubles(), (std::vector<double>{1, 0, 0, 1}));
}

TEST(NpyTest, Versions2And3AndHeaderVariants) {
  for (int major : {2, 3}) {
    const Bytes b = make_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }",
                             raw_bytes<double>({2.5}), major);
    EXPECT_EQ(logz::io::parse_npy(b, "v.npy").doubles(), (std::vector<double>{2.5})) << major;
  }
  // Key order, double quotes, no trailing comma, Python 2 long suffix.
  const Bytes b = make_npy("{\"shape\": (1L, 2L), \"fortran_order\": False, \"descr\": \"<f8\"}",
                           raw_bytes<double>({1, 2}));
  EXPECT_EQ(logz::io::parse_npy(b, "v.npy").shape, (std::vector<std::size_t>{1, 2}));
}

TEST_F(IoTest, NpyMalformedFilesNameTheFile) {
  const std::string good_header = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }";
  const Bytes good = make_npy(good_header, raw_bytes<double>({1, 2, 3, 4}));

  Bytes bad_magic = good;
  bad_magic[1] = 'X';
  const std::string p1 = write("bad_magic.npy", bad_magic);
  expect_input_error([&] { logz::io::read_npy(p1); }, {p1, "magic"});

  const std::string p2 = write("trunc_header.npy", Bytes(good.begin(), good.begin() + 40));
  expect_input_error([&] { logz::io::read_npy(p2); }, {p2, "header", "truncated"});

  const std::string p3 = write("trunc_data.npy", Bytes(good.begin(), good.end() - 5));
  expect_input_error([&] { logz::io::read_npy(p3); }, {p3, "data", "truncated"});

  const std::string p4 =
      write("mismatch.npy", make_npy(good_header, raw_bytes<double>({1, 2, 3, 4, 5})));
  expect_input_error([&] { logz::io::read_npy(p4); }, {p4, "data", "2 x 2"});

  const std::string p5 =
      write("complex.npy",
            make_npy("{'descr': '<c16', 'fortran_order': False, 'shape': (1,), }", Bytes(16, 0)));
  expect_input_error([&] { logz::io::read_npy(p5); }, {p5, "descr", "'<c16'"});

  const std::string p6 = write(
      "huge.npy",
      make_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 8), }",
               Bytes(8, 0)));
  expect_input_error([&] { logz::io::read_npy(p6); }, {p6, "data"});

  const std::string p7 = write("syntax.npy", make_npy("{'descr': '<f8', 'shape': (2,", {}));
  expect_input_error([&] { logz::io::read_npy(p7); }, {p7, "header"});

  const std::string p8 = write(
      "negative.npy", make_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (-2,), }", {}));
  expect_input_error([&] { logz::io::read_npy(p8); }, {p8, "shape"});

  const std::string p9 = write(
      "structured.npy",
      make_npy("{'descr': [('x', '<f8')], 'fortran_order': False, 'shape': (1,), }", Bytes(8, 0)));
  expect_input_error([&] { logz::io::read_npy(p9); }, {p9, "descr", "structured"});

  const std::string p10 =
      write("nokey.npy", make_npy("{'descr': '<f8', 'shape': (1,), }", Bytes(8, 0)));
  expect_input_error([&] { logz::io::read_npy(p10); }, {p10, "fortran_order"});

  Bytes bad_version = good;
  bad_version[6] = 9;
  const std::string p11 = write("version.npy", bad_version);
  expect_input_error([&] { logz::io::read_npy(p11); }, {p11, "version", "9.0"});

  const std::string p12 = write("empty.npy", {});
  expect_input_error([&] { logz::io::read_npy(p12); }, {p12, "empty file"});

  const std::string missing = path("missing.npy");
  expect_input_error([&] { logz::io::read_npy(missing); },
                     {missing + ": expected a readable file (No such file or directory)"});
}

TEST(NpyTest, EveryTruncationIsAnInputError) {
  const Bytes good = logz::io::encode_npy(sample_matrix());
  for (std::size_t n = 0; n < good.size(); ++n) {
    EXPECT_THROW(logz::io::parse_npy(std::span(good.data(), n), "t.npy"), InputError) << n;
  }
}

// Found by fuzz/npy_fuzz: a version 1.0 header length of 0 or 1 ended the header inside the two
// bytes read with the length, and the rest was read into a header buffer of "-2" bytes.
TEST_F(IoTest, NpyHeaderLengthBelowTwoIsRefused) {
  const std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }";
  for (unsigned char n : {0, 1}) {
    Bytes image = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, n, 0};
    image.insert(image.end(), dict.begin(), dict.end());
    image.insert(image.end(), 8, 0);
    const std::string got = "got " + std::to_string(n);
    expect_input_error([&] { logz::io::parse_npy(image, "h.npy"); },
                       {"h.npy: header: expected a header of 2 to 1048576 bytes, " + got});
    const std::string p = write("h" + std::to_string(n) + ".npy", image);
    expect_input_error([&] { logz::io::read_npy(p); }, {p + ": header: ", got});
    expect_input_error([&] { logz::io::read_numbers(p); }, {p + ": header: ", got});
  }
}

// ---------------------------------------------------------------- .npz

std::map<std::string, Array> sample_arrays() {
  return {{"W", sample_matrix()},
          {"a", Array{{4}, {0.5, -0.5, 1.0, 2.0}}},
          {"b", Array{{3}, {-3, 2, 1}}},
          {"scalar", Array{{}, {9.75}}},
          {"empty", Array{{0, 2}, {}}}};
}

TEST_F(IoTest, NpzRoundTripStoredAndCompressed) {
  for (bool compress : {false, true}) {
    const std::string p = path(compress ? "c.npz" : "s.npz");
    logz::io::write_npz(p, sample_arrays(), compress);
    EXPECT_EQ(logz::io::read_npz(p), sample_arrays()) << compress;
    EXPECT_EQ(logz::io::read_npz_array(p, "W"), sample_matrix()) << compress;
    EXPECT_EQ(logz::io::read_npz_array(p, "b.npy").doubles(), (std::vector<double>{-3, 2, 1}));
  }
}

// Bytes before an archive whose offsets count from its own start (a self-extracting archive, or
// one archive after another): Python's zipfile, and so numpy.load, reads the last archive, and
// so does logz, not the first consistent one libzip would pick.
TEST_F(IoTest, NpzMembersReadAsEigenMatricesAndVectors) {
  // numpy's C order: row i of the 2 x 3 member is (3i, 3i + 1, 3i + 2); int32 converted.
  const std::string p = path("params.npz");
  logz::io::write_npz(p, {{"M", Array{{2, 3}, std::vector<std::int32_t>{0, 1, 2, 3, 4, 5}}},
                          {"v", Array{{3}, {0.5, 1.5, 2.5}}},
                          {"c", Array{{3, 1}, {1.0, 2.0, 3.0}}},
                          {"t", Array{{1, 2, 2}, {1.0, 2.0, 3.0, 4.0}}}});
  const Eigen::MatrixXd m = logz::io::read_npz_matrix(p, "M", "A x B");
  ASSERT_EQ(logz::io::matrix_shape(m), "2 x 3");
  EXPECT_EQ(m(1, 0), 3.0);
  EXPECT_EQ(m(0, 2), 2.0);
  EXPECT_EQ(logz::io::read_npz_vector(p, "v", "B"), Eigen::Vector3d(0.5, 1.5, 2.5));
  EXPECT_EQ(logz::io::read_npz_vector(p, "c", "B"),
            Eigen::Vector3d(1.0, 2.0, 3.0));  // n x 1 counts as 1-D
  try {
    logz::io::read_npz_matrix(p, "t", "A x B");
    ADD_FAILURE() << "a 3-D member read as a matrix";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("a 2-D array (A x B), got 1 x 2 x 2"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(logz::io::read_npz_vector(p, "M", "B"), InputError);
}

TEST_F(IoTest, NpzAfterOtherBytesIsReadAsNumpyReadsIt) {
  const auto bytes = [](const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  logz::io::write_npz(path("first.npz"), {{"junk", Array{{2}, {1.0, 2.0}}}}, false);
  for (bool compress : {false, true}) {
    logz::io::write_npz(path("second.npz"), sample_arrays(), compress);
    for (const std::string& prefix :
         {bytes(path("first.npz")), std::string("#!/bin/sh\nexit 0\n")}) {
      std::ofstream(path("joined.npz"), std::ios::binary) << prefix << bytes(path("second.npz"));
      EXPECT_EQ(logz::io::read_npz(path("joined.npz")), sample_arrays()) << compress;
      EXPECT_EQ(logz::io::read_npz_array(path("joined.npz"), "W"), sample_matrix()) << compress;
    }
  }
}

TEST_F(IoTest, NpzCompressionShrinksRedundantData) {
  const std::map<std::string, Array> zeros = {{"z", Array{{100, 100}, std::vector<double>(10000)}}};
  logz::io::write_npz(path("s.npz"), zeros, false);
  logz::io::write_npz(path("c.npz"), zeros, true);
  EXPECT_GT(fs::file_size(path("s.npz")), 80000u);
  EXPECT_LT(fs::file_size(path("c.npz")), 2000u);
  EXPECT_EQ(logz::io::read_npz(path("c.npz")), zeros);
}

TEST_F(IoTest, NpzEmptyArchive) {
  logz::io::write_npz(path("e.npz"), {});
  EXPECT_TRUE(logz::io::read_npz(path("e.npz")).empty());
  expect_input_error([&] { logz::io::read_npz_array(path("e.npz"), "W"); },
                     {path("e.npz"), "W", "no arrays"});
}

TEST_F(IoTest, NpzMissingKeyListsKeys) {
  const std::string p = path("w.npz");
  logz::io::write_npz(p, sample_arrays());
  expect_input_error([&] { logz::io::read_npz_array(p, "Q"); },
                     {p + ": Q: expected", "W, a, b, empty, scalar"});
}

TEST_F(IoTest, NpzRejectsNonZipFiles) {
  const std::string text = write_text("text.npz", "this is not a zip archive at all\n");
  expect_input_error([&] { logz::io::read_npz(text); }, {text, "ZIP archive"});
  const std::string npy = write("x.npz", logz::io::encode_npy(Array{{1}, {1}}));
  expect_input_error([&] { logz::io::read_npz(npy); }, {npy, ".npy file"});
  const std::string empty = write("empty.npz", {});
  expect_input_error([&] { logz::io::read_npz_array(empty, "W"); }, {empty, "empty file"});
}

TEST_F(IoTest, NpzDetectsCorruption) {
  const std::string p = path("w.npz");
  logz::io::write_npz(p, {{"W", sample_matrix()}});
  const Bytes good = read_all(p);

  // A flipped byte inside the stored .npy data fails the CRC check.
  Bytes flipped = good;
  flipped[30 + 5 + 128 + 3] ^= 0x40;
  const std::string p1 = write("crc.npz", flipped);
  expect_input_error([&] { logz::io::read_npz(p1); }, {p1, "W.npy", "CRC-32"});

  // An unsupported compression method in the central directory.
  Bytes method = good;
  const std::size_t cd = good.size() - 22 - (46 + 5);
  ASSERT_EQ(method[cd], 0x50);
  method[cd + 10] = 12;
  const std::string p2 = write("method.npz", method);
  expect_input_error([&] { logz::io::read_npz(p2); }, {p2, "W.npy", "method 12"});

  // Garbage instead of deflate data.
  logz::io::write_npz(path("c.npz"), {{"W", sample_matrix()}}, true);
  Bytes deflated = read_all(path("c.npz"));
  for (std::size_t i = 35; i < 60; ++i) deflated[i] = 0xff;
  const std::string p3 = write("inflate.npz", deflated);
  expect_input_error([&] { logz::io::read_npz(p3); }, {p3, "W.npy"});
}

TEST_F(IoTest, NpzEveryTruncationAndByteFlipIsHandled) {
  // Each variant goes to a fresh file: rewriting one file in place makes ext4 flush it to disk.
  int serial = 0;
  const auto write_variant = [&](const Bytes& bytes) {
    return write("v" + std::to_string(serial++) + ".npz", bytes);
  };
  for (bool compress : {false, true}) {
    const std::string p = path("w.npz");
    logz::io::write_npz(p, {{"a", Array{{3}, {1, 2, 3}}}, {"b", Array{{2}, {4, 5}}}}, compress);
    const Bytes good = read_all(p);
    for (std::size_t n = 0; n < good.size(); n += 3) {
      const std::string q =
          write_variant(Bytes(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n)));
      EXPECT_THROW(logz::io::read_npz(q), InputError) << n;
      fs::remove(q);
    }
    // Any single-byte corruption either still reads (e.g. a timestamp) or is an InputError.
    for (std::size_t i = 0; i < good.size(); ++i) {
      Bytes bad = good;
      bad[i] ^= 0xa5;
      const std::string q = write_variant(bad);
      try {
        logz::io::read_npz(q);
      } catch (const InputError&) {
      }
      fs::remove(q);
    }
  }
}

// The layout NumPy/Python zipfile produce for large members: ZIP64 extra fields with saturated
// 32-bit sizes and offset, plus ZIP64 end-of-central-directory record and locator.
TEST_F(IoTest, NpzReadsZip64Records) {
  const Bytes npy = logz::io::encode_npy(Array{{2}, {1.25, -8.0}});
  const std::string name = "x.npy";
  const std::uint32_t crc = crc_of(npy);
  Bytes z;
  put_le(z, 0x04034b50, 4);
  put_le(z, 45, 2);
  put_le(z, 0, 2);
  put_le(z, 0, 2);
  put_le(z, 0, 4);
  put_le(z, crc, 4);
  put_le(z, 0xffffffff, 4);
  put_le(z, 0xffffffff, 4);
  put_le(z, name.size(), 2);
  put_le(z, 20, 2);
  z.insert(z.end(), name.begin(), name.end());
  put_le(z, 1, 2);
  put_le(z, 16, 2);
  put_le(z, npy.size(), 8);
  put_le(z, npy.size(), 8);
  z.insert(z.end(), npy.begin(), npy.end());
  const std::size_t cd_offset = z.size();
  put_le(z, 0x02014b50, 4);
  put_le(z, 45, 2);
  put_le(z, 45, 2);
  put_le(z, 0, 2);
  put_le(z, 0, 2);
  put_le(z, 0, 4);
  put_le(z, crc, 4);
  put_le(z, 0xffffffff, 4);
  put_le(z, 0xffffffff, 4);
  put_le(z, name.size(), 2);
  put_le(z, 28, 2);
  put_le(z, 0, 2);
  put_le(z, 0, 2);
  put_le(z, 0, 2);
  put_le(z, 0, 4);
  put_le(z, 0xffffffff, 4);
  z.insert(z.end(), name.begin(), name.end());
  put_le(z, 1, 2);
  put_le(z, 24, 2);
  put_le(z, npy.size(), 8);
  put_le(z, npy.size(), 8);
  put_le(z, 0, 8);
  const std::size_t cd_size = z.size() - cd_offset;
  const std::size_t z64 = z.size();
  put_le(z, 0x06064b50, 4);
  put_le(z, 44, 8);
  put_le(z, 45, 2);
  put_le(z, 45, 2);
  put_le(z, 0, 4);
  put_le(z, 0, 4);
  put_le(z, 1, 8);
  put_le(z, 1, 8);
  put_le(z, cd_size, 8);
  put_le(z, cd_offset, 8);
  put_le(z, 0x07064b50, 4);
  put_le(z, 0, 4);
  put_le(z, z64, 8);
  put_le(z, 1, 4);
  put_le(z, 0x06054b50, 4);
  put_le(z, 0, 4);
  put_le(z, 0xffff, 2);
  put_le(z, 0xffff, 2);
  put_le(z, 0xffffffff, 4);
  put_le(z, 0xffffffff, 4);
  put_le(z, 0, 2);
  const std::string p = write("z64.npz", z);
  EXPECT_EQ(logz::io::read_npz_array(p, "x").doubles(), (std::vector<double>{1.25, -8.0}));

  // Without the locator the saturated end record cannot be resolved.
  Bytes no_locator(z.begin(), z.begin() + static_cast<std::ptrdiff_t>(z64));
  no_locator.insert(no_locator.end(), z.end() - 22, z.end());
  const std::string q = write("z64_broken.npz", no_locator);
  expect_input_error([&] { logz::io::read_npz(q); }, {q, "ZIP64"});
}

TEST_F(IoTest, NpzMemberErrorsNameFileAndKey) {
  // A member whose .npy content is malformed: the error names the archive and the key.
  const std::string p = path("w.npz");
  logz::io::write_npz(p, {{"W", Array{{2}, {1, 2}}}});
  Bytes b = read_all(p);
  // Corrupt the npy magic inside the stored member and fix up both CRC fields.
  b[30 + 5 + 1] = 'X';
  const Bytes member(b.begin() + 35, b.begin() + 35 + 128 + 16);
  const std::uint32_t crc = crc_of(member);
  const std::size_t cd = b.size() - 22 - (46 + 5);
  for (std::size_t off : {std::size_t{14}, cd + 16}) {
    for (int i = 0; i < 4; ++i) b[off + i] = static_cast<unsigned char>(crc >> (8 * i));
  }
  const std::string q = write("bad_member.npz", b);
  expect_input_error([&] { logz::io::read_npz(q); }, {q + ": W: magic"});
}

// ---- Hand-built archives: what no writer produces, for the reader to refuse.

// One ZIP member and what its headers record: data as stored (deflated when method is 8).
struct ZipMember {
  std::string name;
  Bytes data;
  std::uint16_t method = 0;
  std::uint32_t crc = 0;
  std::uint64_t size = 0;        // uncompressed size in the central directory
  std::uint64_t local_size = 0;  // ... and in the local header
  std::uint64_t comp_size = 0;   // compressed size in both; data.size() when 0
};

ZipMember stored(const std::string& name, const Bytes& npy) {
  return {name, npy, 0, crc_of(npy), npy.size(), npy.size()};
}

Bytes raw_deflate(const Bytes& in, int flush = Z_FINISH) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, 9, Z_DEFLATED, -MAX_WBITS, 9, Z_DEFAULT_STRATEGY), Z_OK);
  Bytes out(deflateBound(&zs, in.size()) + 64);
  zs.next_in = const_cast<unsigned char*>(in.data());
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = out.data();
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_NE(deflate(&zs, flush), Z_STREAM_ERROR);
  out.resize(out.size() - zs.avail_out);
  deflateEnd(&zs);
  return out;
}

ZipMember deflated(const std::string& name, const Bytes& npy) {
  return {name, raw_deflate(npy), 8, crc_of(npy), npy.size(), npy.size()};
}

// A single-disk ZIP archive of the members, local headers first, then the central directory;
// sizes of 4 GiB and more go into ZIP64 extra fields.
Bytes make_zip(const std::vector<ZipMember>& members) {
  Bytes z, cd;
  for (const ZipMember& m : members) {
    const std::size_t offset = z.size();
    const std::uint64_t comp_size = m.comp_size != 0 ? m.comp_size : m.data.size();
    for (Bytes* out : {&z, &cd}) {
      const bool central = out == &cd;
      const std::uint64_t size = central ? m.size : m.local_size;
      const bool zip64 = size >= 0xffffffffu || comp_size >= 0xffffffffu;
      put_le(*out, central ? 0x02014b50 : 0x04034b50, 4);
      if (central) put_le(*out, 45, 2);  // made by
      put_le(*out, 45, 2);               // needed to extract
      put_le(*out, 0, 2);                // flags
      put_le(*out, m.method, 2);
      put_le(*out, 0, 4);  // time and date
      put_le(*out, m.crc, 4);
      put_le(*out, zip64 ? 0xffffffffu : comp_size, 4);
      put_le(*out, zip64 ? 0xffffffffu : size, 4);
      put_le(*out, m.name.size(), 2);
      put_le(*out, zip64 ? 20 : 0, 2);  // extra field length
      if (central) {
        put_le(*out, 0, 2);  // comment length
        put_le(*out, 0, 2);  // disk
        put_le(*out, 0, 2);  // internal attributes
        put_le(*out, 0, 4);  // external attributes
        put_le(*out, offset, 4);
      }
      out->insert(out->end(), m.name.begin(), m.name.end());
      if (zip64) {
        put_le(*out, 1, 2);
        put_le(*out, 16, 2);
        put_le(*out, size, 8);
        put_le(*out, comp_size, 8);
      }
      if (!central) out->insert(out->end(), m.data.begin(), m.data.end());
    }
  }
  const std::size_t cd_offset = z.size();
  z.insert(z.end(), cd.begin(), cd.end());
  put_le(z, 0x06054b50, 4);
  put_le(z, 0, 4);
  put_le(z, members.size(), 2);
  put_le(z, members.size(), 2);
  put_le(z, cd.size(), 4);
  put_le(z, cd_offset, 4);
  put_le(z, 0, 2);
  return z;
}

Bytes npy_of(const Array& a) { return logz::io::encode_npy(a); }

TEST_F(IoTest, NpzHandBuiltArchiveReads) {
  // The builder itself is sound: what the refusals below change is what makes them fail.
  const Bytes w = npy_of(sample_matrix());
  const std::string p = write("ok.npz", make_zip({stored("W.npy", w), deflated("d.npy", w)}));
  EXPECT_EQ(logz::io::read_npz(p),
            (std::map<std::string, Array>{{"W", sample_matrix()}, {"d", sample_matrix()}}));
}

TEST_F(IoTest, NpzTruncatedArchiveNamesTheFile) {
  logz::io::write_npz(path("w.npz"), sample_arrays(), true);
  const Bytes good = read_all(path("w.npz"));
  const std::string p = write("cut.npz", Bytes(good.begin(), good.begin() + good.size() / 2));
  expect_input_error([&] { logz::io::read_npz(p); },
                     {p + ": expected a ZIP", "end-of-central-directory", "truncated"});
}

TEST_F(IoTest, NpzTwoMembersOfOneNameAreRefused) {
  // numpy.load would silently take the second 'a'; a lookup by name the first.
  const std::string p = write("dup.npz", make_zip({stored("a.npy", npy_of(Array{{1}, {1}})),
                                                   stored("b.npy", npy_of(Array{{1}, {2}})),
                                                   stored("a.npy", npy_of(Array{{2}, {3, 4}}))}));
  expect_input_error([&] { logz::io::read_npz(p); }, {p + ": a: expected one member", "two"});
  expect_input_error([&] { logz::io::read_npz_array(p, "b"); }, {p + ": a:", "two"});
}

TEST_F(IoTest, NpzMemberThatIsNotANpyNamesFileAndKey) {
  const Bytes text = {'h', 'e', 'l', 'l', 'o'};
  const std::string p = write("text.npz", make_zip({deflated("t.npy", text)}));
  expect_input_error([&] { logz::io::read_npz(p); }, {p + ": t: magic", "'hello'"});
  Bytes cut = npy_of(sample_matrix());
  cut.resize(cut.size() - 8);
  const std::string q = write("short.npz", make_zip({stored("W.npy", cut)}));
  expect_input_error([&] { logz::io::read_npz_array(q, "W"); }, {q + ": W: data", "96 bytes"});
}

// The central directory's sizes are checked against the member's .npy header before the
// member is inflated: a directory that lies is an error naming the member, never a crash.
TEST_F(IoTest, NpzCentralDirectorySizeThatLiesIsRefused) {
  const Bytes w = npy_of(sample_matrix());
  // Stored: the directory claims 8 more bytes than the member has (both sizes, consistently).
  ZipMember longer = stored("W.npy", w);
  longer.size = longer.local_size = w.size() + 8;
  longer.data.resize(w.size() + 8, 0);
  const std::string p = write("longer.npz", make_zip({longer}));
  expect_input_error([&] { logz::io::read_npz(p); }, {p + ": W: data", "trailing bytes"});
  // Deflated: the directory claims more, or fewer, bytes than the stream inflates to.
  for (const long delta : {64L, -64L}) {
    ZipMember lie = deflated("W.npy", w);
    lie.size = lie.local_size = w.size() + static_cast<std::uint64_t>(delta);
    const std::string q = write("lie" + std::to_string(delta) + ".npz", make_zip({lie}));
    expect_input_error([&] { logz::io::read_npz(q); }, {q + ": W: data", "archive member"});
  }
  // Stored, the directory and the local header disagree on the size.
  ZipMember mixed = stored("W.npy", w);
  mixed.size = w.size() - 8;
  const std::string r = write("mixed.npz", make_zip({mixed}));
  expect_input_error([&] { logz::io::read_npz(r); }, {r + ": W.npy", "equal sizes"});
}

// A member claiming 10^12 float64 elements (8 TB) in an archive of about 1 MB: refused from
// its sizes before anything is inflated or allocated (an 8 TB allocation would throw
// std::bad_alloc, not InputError).
TEST_F(IoTest, NpzMemberClaimingMoreThanTheArchiveCanHoldIsRefused) {
  Bytes claim =
      make_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000,), }", {});
  Bytes noise(1 << 20);
  std::uint32_t x = 12345;
  for (unsigned char& c : noise)
    c = static_cast<unsigned char>((x = x * 1664525u + 1013904223u) >> 24);
  claim.insert(claim.end(), noise.begin(), noise.end());  // incompressible: ~1 MB deflated
  // The directory tells the truth about the member's size: the .npy header is what lies.
  const std::string p = write("honest_dir.npz", make_zip({deflated("x.npy", claim)}));
  expect_input_error([&] { logz::io::read_npz(p); },
                     {p + ": x: data", "8000000000000 bytes", "archive member"});
  // The directory backs the header's claim: deflate cannot reach 8 TB from 1 MB.
  ZipMember forged = deflated("x.npy", claim);
  forged.size = forged.local_size = 8000000000000ULL + 128;
  const std::string q = write("forged.npz", make_zip({forged}));
  expect_input_error([&] { logz::io::read_npz(q); }, {q + ": x.npy", "forged size"});
  // ... nor can a stored member be larger than the archive.
  ZipMember big = stored("x.npy", claim);
  big.size = big.local_size = big.comp_size = 8000000000000ULL + 128;
  const std::string r = write("stored_big.npz", make_zip({big}));
  expect_input_error([&] { logz::io::read_npz(r); },
                     {r + ": x.npy", "8000000000128 compressed bytes", "more than the archive"});
}

// A 1 MB member whose stream inflates to 1 GiB while its header and directory say 208 bytes:
// reading stops one byte past the 208, so the bomb is refused without being inflated.
TEST_F(IoTest, NpzMemberInflatingPastItsSizeIsRefused) {
  const Bytes npy = npy_of(Array{{10}, std::vector<double>(10, 1.0)});
  // Deflate blocks ending on a full flush can be concatenated: 1024 copies of the blocks of
  // 1 MiB of zeros, then an empty final block.
  Bytes stream = raw_deflate(npy, Z_FULL_FLUSH);
  const Bytes mib = raw_deflate(Bytes(1 << 20, 0), Z_FULL_FLUSH);
  for (int i = 0; i < 1024; ++i) stream.insert(stream.end(), mib.begin(), mib.end());
  const Bytes end = raw_deflate({});
  stream.insert(stream.end(), end.begin(), end.end());
  ASSERT_LT(stream.size(), 2u << 20);
  const ZipMember bomb{"b.npy", stream, 8, crc_of(npy), npy.size(), npy.size()};
  const std::string p = write("bomb.npz", make_zip({bomb}));
  expect_input_error([&] { logz::io::read_npz(p); }, {p + ": b: data", "got more"});
}

// ZIP data after other bytes (a self-extracting archive): read when the directory's offsets
// count from the start of the file, as `zip -A` makes them; a clear error when they do not.
TEST_F(IoTest, NpzAfterPrefixBytes) {
  const std::string stub = "#!/bin/sh\necho not an archive\nexit 0\n";
  const Bytes zip = make_zip({stored("W.npy", npy_of(sample_matrix()))});
  Bytes unadjusted(stub.begin(), stub.end());
  unadjusted.insert(unadjusted.end(), zip.begin(), zip.end());
  Bytes adjusted = unadjusted;
  const auto shift = [&](std::size_t at) {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(adjusted[at + i]) << (8 * i);
    v += static_cast<std::uint32_t>(stub.size());
    for (int i = 0; i < 4; ++i) adjusted[at + i] = static_cast<unsigned char>(v >> (8 * i));
  };
  const std::size_t eocd = adjusted.size() - 22;
  const std::size_t cd = stub.size() + (zip.size() - 22 - 46 - 5);
  shift(cd + 42);    // the member's local header offset
  shift(eocd + 16);  // the central directory's offset
  const std::string p = write("sfx.npz", adjusted);
  EXPECT_EQ(logz::io::read_npz_array(p, "W"), sample_matrix());
  // Offsets counted from the archive's own start, as zipfile reads them (numpy too).
  const std::string q = write("sfx_unadjusted.npz", unadjusted);
  EXPECT_EQ(logz::io::read_npz_array(q, "W"), sample_matrix());
}

// Arrays of every dtype go into an archive as themselves, stored or deflated.
TEST_F(IoTest, NpzKeepsEveryDtype) {
  const std::map<std::string, Array> arrays = {
      {"f8", Array{{2}, {0.25, -1e300}}},
      {"f4", Array{{2}, std::vector<float>{0.5f, 3.0f}}},
      {"u1", Array{{2, 3}, std::vector<std::uint8_t>{0, 1, 2, 253, 254, 255}}},
      {"i8", Array{{1}, std::vector<std::int64_t>{-(1LL << 60)}}},
      {"i4", Array{{2}, std::vector<std::int32_t>{-1, 1}}},
      {"b1", Array{{2}, std::vector<logz::io::Bool>{{1}, {0}}}},
  };
  for (bool compress : {false, true}) {
    const std::string p = path(compress ? "dc.npz" : "ds.npz");
    logz::io::write_npz(p, arrays, compress);
    EXPECT_EQ(logz::io::read_npz(p), arrays) << compress;
    EXPECT_EQ(logz::io::read_npz_array(p, "u1").dtype(), Dtype::uint8);
  }
}

TEST_F(IoTest, WriteNpzRejectsEmptyKey) {
  EXPECT_THROW(logz::io::write_npz(path("k.npz"), {{"", Array{{1}, {1}}}}), logz::InvalidArgument);
  EXPECT_THROW(logz::io::write_npz(path("k.npz"), {{"x", Array{{2}, {1}}}}), logz::InvalidArgument);
  EXPECT_FALSE(fs::exists(path("k.npz")));  // no half-written archive is left behind
}

TEST_F(IoTest, WriteToUnwritablePathIsAnInputError) {
  const std::string p = path("no_such_dir/x.npy");
  expect_input_error([&] { logz::io::write_npy(p, Array{{1}, {1}}); }, {p, "writable"});
  expect_input_error([&] { logz::io::write_npz(p, {}); }, {p, "writable"});
}

// ---------------------------------------------------------------- number lists

TEST_F(IoTest, NumbersWithCommentsBlankLinesAndHeader) {
  const std::string p = write_text("works.csv",
                                   "# generated by a test\n"
                                   "\n"
                                   "work\n"
                                   "1.5\n"
                                   "  -2e-3  \n"
                                   "# a comment in the middle\n"
                                   "+4\n"
                                   "\t7\n"
                                   "0");
  EXPECT_EQ(logz::io::read_numbers(p), (std::vector<double>{1.5, -2e-3, 4, 7, 0}));
}

TEST_F(IoTest, NumbersWithCrlfLineEndings) {
  const std::string p =
      write_text("works.txt", "\xEF\xBB\xBF\"w\"\r\n1\r\n\r\n2.5\r\n# c\r\n3\r\n");
  EXPECT_EQ(logz::io::read_numbers(p), (std::vector<double>{1, 2.5, 3}));
}

TEST_F(IoTest, NumbersBadLineNamesTheLine) {
  const std::string p = write_text("works.txt", "# header comment\n1\n2\n\nabc\n5\n");
  try {
    logz::io::read_numbers(p);
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), p + ":5: expected a finite number, got 'abc'");
  }
  const std::string q = write_text("partial.txt", "1\n2.5x\n");
  expect_input_error([&] { logz::io::read_numbers(q); }, {q + ":2:", "'2.5x'"});
  const std::string r = write_text("two_columns.csv", "a,b\n1,2\n");
  expect_input_error([&] { logz::io::read_numbers(r); }, {r + ":2:", "single column"});
  const std::string s = write_text("second_header.txt", "work\nmore text\n");
  expect_input_error([&] { logz::io::read_numbers(s); }, {s + ":2:", "'more text'"});
}

TEST_F(IoTest, NumbersRejectNonFinite) {
  const std::string p = write_text("nan.txt", "1\n2\nnan\n");
  try {
    logz::io::read_numbers(p);
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), p + ":3: expected a finite number, got nan");
  }
  const std::string q = write_text("nan_first.txt", "NaN\n1\n");
  expect_input_error([&] { logz::io::read_numbers(q); }, {q + ":1:", "got nan"});
  const std::string r = write_text("inf.txt", "1\n-inf\n");
  expect_input_error([&] { logz::io::read_numbers(r); }, {r + ":2:", "got -inf"});
  const std::string s = write_text("big.txt", "1e400\n");
  expect_input_error([&] { logz::io::read_numbers(s); }, {s + ":1:", "out of range"});
  const std::string t = write_text("tiny.txt", "1e-400\n");
  EXPECT_EQ(logz::io::read_numbers(t), (std::vector<double>{0.0}));
}

TEST_F(IoTest, NumbersEmptyAndMissingFiles) {
  const std::string e = write_text("empty.txt", "");
  expect_input_error([&] { logz::io::read_numbers(e); }, {e + ": expected at least one number"});
  const std::string c = write_text("comments.txt", "# only\n\n# comments\n");
  expect_input_error([&] { logz::io::read_numbers(c); }, {c, "at least one number"});
  const std::string h = write_text("header.csv", "work\n");
  expect_input_error([&] { logz::io::read_numbers(h); }, {h, "only a header"});
  const std::string m = path("works.txt");
  try {
    logz::io::read_numbers(m);
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& err) {
    EXPECT_EQ(std::string(err.what()),
              m + ": expected a readable file (No such file or directory)");
  }
}

TEST_F(IoTest, NumbersFromNpy) {
  const std::string v = path("v.npy");
  logz::io::write_npy(v, Array{{3}, {1, 2, 3}});
  EXPECT_EQ(logz::io::read_numbers(v), (std::vector<double>{1, 2, 3}));
  const std::string col = path("col.npy");
  logz::io::write_npy(col, Array{{3, 1}, {4, 5, 6}});
  EXPECT_EQ(logz::io::read_numbers(col), (std::vector<double>{4, 5, 6}));
  const std::string row = path("row.NPY");
  logz::io::write_npy(row, Array{{1, 2}, {7, 8}});
  EXPECT_EQ(logz::io::read_numbers(row), (std::vector<double>{7, 8}));
  const std::string sniffed = path("works.dat");
  logz::io::write_npy(sniffed, Array{{2}, {9, 10}});
  EXPECT_EQ(logz::io::read_numbers(sniffed), (std::vector<double>{9, 10}));

  const std::string m = path("m.npy");
  logz::io::write_npy(m, Array{{2, 2}, {1, 2, 3, 4}});
  expect_input_error([&] { logz::io::read_numbers(m); }, {m, "2 x 2"});
  const std::string n = path("n.npy");
  logz::io::write_npy(n, Array{{3}, {1, std::nan(""), 3}});
  expect_input_error([&] { logz::io::read_numbers(n); }, {n, "element 1", "got nan"});
  const std::string e = path("e.npy");
  logz::io::write_npy(e, Array{{0}, {}});
  expect_input_error([&] { logz::io::read_numbers(e); }, {e, "at least one number"});
  const std::string z = path("w.npz");
  logz::io::write_npz(z, {{"w", Array{{1}, {1}}}});
  expect_input_error([&] { logz::io::read_numbers(z); }, {z, "ZIP"});
}

// NpyColumnReader: blocks of columns of a (K, N) float64 file, in C and Fortran order, across
// the read-ahead cache's boundaries, equal to the array; bad files refused naming the file.
TEST_F(IoTest, NpyColumnReaderReadsColumnBlocksInEitherOrder) {
  const std::size_t k = 7, n = 53;
  std::vector<double> c_order(k * n), f_order(k * n);
  for (std::size_t r = 0; r < k; ++r)
    for (std::size_t j = 0; j < n; ++j)
      c_order[r * n + j] = f_order[j * k + r] = 1000.0 * r + j + 0.25;
  const std::string shape = "(" + std::to_string(k) + ", " + std::to_string(n) + ")";
  const std::string c_path =
      write("c.npy", make_npy("{'descr': '<f8', 'fortran_order': False, 'shape': " + shape + ", }",
                              raw_bytes(c_order)));
  const std::string f_path =
      write("f.npy", make_npy("{'descr': '<f8', 'fortran_order': True, 'shape': " + shape + ", }",
                              raw_bytes(f_order)));
  for (const std::string& p : {c_path, f_path}) {
    logz::io::NpyColumnReader reader(p,
                                     5 * k);  // five columns ahead: blocks cross the cache's ends
    ASSERT_EQ(reader.rows(), k);
    ASSERT_EQ(reader.cols(), n);
    for (const auto& [first, count] : std::vector<std::pair<std::size_t, std::size_t>>{
             {0, 3}, {3, 11}, {14, 1}, {15, 38}, {0, n}, {52, 1}, {20, 0}}) {
      std::vector<double> block(k * count, -1.0);
      reader.read(first, count, block.data());
      for (std::size_t j = 0; j < count; ++j)
        for (std::size_t r = 0; r < k; ++r)
          ASSERT_EQ(block[j * k + r], c_order[r * n + first + j])
              << p << " " << first << "+" << j << ", " << r;
    }
  }
}

TEST_F(IoTest, NpyColumnReaderRefusesWhatItCannotStream) {
  const auto npy = [&](const std::string& name, const std::string& descr, const std::string& shape,
                       const Bytes& data) {
    return write(name, make_npy("{'descr': '" + descr +
                                    "', 'fortran_order': False, 'shape': " + shape + ", }",
                                data));
  };
  const auto open = [](const std::string& p) { return [p] { logz::io::NpyColumnReader r(p); }; };
  expect_input_error(open(npy("f4.npy", "<f4", "(2, 2)", raw_bytes(std::vector<float>(4, 1.0f)))),
                     {"f4.npy", "float64"});
  expect_input_error(
      open(npy("be.npy", ">f8", "(2, 2)", raw_bytes(std::vector<double>(4, 1.0), true))),
      {"be.npy", "'<f8'"});
  expect_input_error(open(npy("one.npy", "<f8", "(4,)", raw_bytes(std::vector<double>(4, 1.0)))),
                     {"one.npy", "2-D"});
  expect_input_error(open(npy("empty.npy", "<f8", "(0, 3)", {})), {"empty.npy", "at least one"});
  expect_input_error(
      open(npy("short.npy", "<f8", "(2, 3)", raw_bytes(std::vector<double>(5, 1.0)))),
      {"short.npy", "truncated"});
  expect_input_error(open(write_text("text.npy", "1 2 3\n")), {"text.npy", "NUMPY"});
  expect_input_error(open(path("missing.npy")), {"missing.npy", "readable"});
  expect_input_error(open("/dev/zero"), {"/dev/zero", "regular"});
  // A value that is not finite is named by its row and column when first read, in either order.
  std::vector<double> values(6, 1.0);
  values[4] = std::numeric_limits<double>::quiet_NaN();  // C order: row 1, column 1 of (2, 3)
  logz::io::NpyColumnReader c(npy("nan.npy", "<f8", "(2, 3)", raw_bytes(values)));
  std::vector<double> block(6);
  expect_input_error([&] { c.read(0, 3, block.data()); }, {"nan.npy", "finite", "row 1, column 1"});
  logz::io::NpyColumnReader f(
      write("nan_f.npy", make_npy("{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }",
                                  raw_bytes(values))));  // F order: row 0, column 2
  expect_input_error([&] { f.read(0, 3, block.data()); },
                     {"nan_f.npy", "finite", "row 0, column 2"});
}

}  // namespace
