// The config of `logz train rbm`: [model] (hidden units), [training] (CD-k or PCD), [output],
// [evaluate] (AIS after training), with [data] (images: services/image_data.hpp) and [tracking]
// (training_app/rbm_tracking.hpp). Keys: docs/training.md; `logz list` shows them.
#pragma once

#include <string>
#include <vector>

#include "logz/config/config.hpp"
#include "logz/core/enum_names.hpp"
#include "logz/training/rbm_trainer.hpp"
#include "logz/training_app/rbm_evaluation.hpp"

namespace logz {

// Every key group `logz train rbm` reads, section by section.
const std::vector<const KeyGroup*>& rbm_training_keys();

RbmTrainingOptions read_rbm_training_options(Config& config);

struct RbmOutputSettings {
  std::string weights, history;  // history "": no CSV of the epochs
};
// [output]; `weights_override` (the tool's --output) replaces [output] weights when not empty.
RbmOutputSettings read_rbm_output_settings(Config& config, const std::string& weights_override);

// [evaluate] method = "ais": log Z of the trained RBM by forward AIS (base rate of the training
// set), the exact value when the smaller layer has <= 25 units, and the validation set's
// log-likelihood per example.
LOGZ_NAMED_ENUM(RbmEvaluateMethod, none, ais);

struct RbmEvaluateSettings {
  RbmEvaluateMethod method = RbmEvaluateMethod::none;
  std::string output;
  RbmAisSettings ais;
};
RbmEvaluateSettings read_rbm_evaluate_settings(Config& config);

}  // namespace logz
