#include "logz/training_app/rbm_training.hpp"

#include "logz/services/image_data.hpp"
#include "logz/services/registry.hpp"
#include "logz/training_app/rbm_tracking.hpp"

namespace logz {

namespace {

const Key kModelType = Key::choice("type", std::string("rbm"), {"rbm"}, "the model to train");
const Key kNumHidden = Key::integer("num_hidden", required, 1, 1 << 20, "hidden units");
const KeyGroup kModelKeys{"model", "train rbm", {&kModelType, &kNumHidden}};

const Key kMethod = Key::choice("method", std::string("cd"), {"cd", "pcd"},
                                "contrastive divergence or persistent CD");
// The [training] defaults are RbmTrainingOptions' (training/rbm_trainer.hpp).
const RbmTrainingOptions kTrainingDefaults;
const Key kK =
    Key::integer("k", kTrainingDefaults.k, 1, 100000, "Gibbs steps per gradient estimate");
const Key kBatchSize =
    Key::integer("batch_size", kTrainingDefaults.batch_size, 1, 1 << 24, "examples per minibatch");
// Rates and sds up to 10^6: far past any useful value.
const Key kLearningRate =
    Key::number("learning_rate", kTrainingDefaults.learning_rate, 1e-300, 1e6, "the step size");
const Key kMomentum =
    Key::number("momentum", kTrainingDefaults.momentum, 0.0, 0.999999, "momentum of the updates");
const Key kWeightDecay =
    Key::number("weight_decay", kTrainingDefaults.weight_decay, 0.0, 1e6, "L2 penalty on W");
const Key kEpochs =
    Key::integer("epochs", kTrainingDefaults.epochs, 0, 1 << 24, "passes over the training set");
const Key kInitSd =
    Key::number("init_sd", kTrainingDefaults.init_sd, 0.0, 1e6, "sd of the initial weights");
const Key kSeed = Key::integer("seed", static_cast<std::int64_t>(kTrainingDefaults.seed), 0,
                               INT64_MAX, "minibatch order, initial weights and chains");
const KeyGroup kTrainingKeys{"training",
                             "train rbm",
                             {&kMethod, &kK, &kBatchSize, &kLearningRate, &kMomentum, &kWeightDecay,
                              &kEpochs, &kInitSd, &kSeed}};

const Key kWeights =
    Key::string("weights", required, "the .npz the weights are written to (W, a, b)");
const Key kHistory = Key::string("history", std::string(""), "a CSV of the epochs (\"\": none)");
const KeyGroup kOutputKeys{"output", "train rbm", {&kWeights, &kHistory}};

const Key kEvaluateMethod =
    Key::enumeration("method", RbmEvaluateMethod::none, "ais: log Z by AIS after training");
const Key kEvaluateOutput =
    Key::string("output", std::string(""), "a JSON file of the evaluation (\"\": none)");

const KeyGroup& evaluate_keys() {
  static const KeyGroup g = [] {
    KeyGroup k{"evaluate", "train rbm", {&kEvaluateMethod}};
    for (const Key* a : rbm_ais_keys("")) k.keys.push_back(a);
    k.keys.push_back(&kEvaluateOutput);
    return k;
  }();
  return g;
}

}  // namespace

const std::vector<const KeyGroup*>& rbm_training_keys() {
  static const std::vector<const KeyGroup*> groups = {&training_image_keys(), &kModelKeys,
                                                      &kTrainingKeys,         &kOutputKeys,
                                                      &evaluate_keys(),       &tracking_keys()};
  return groups;
}

RbmTrainingOptions read_rbm_training_options(Config& config) {
  auto m = config.section("model");
  m.check_known({&kModelKeys});
  m.get_string(kModelType);
  RbmTrainingOptions o;
  o.num_hidden = static_cast<int>(m.get_int(kNumHidden));
  auto t = config.section("training");
  t.check_known({&kTrainingKeys});
  o.method = t.get_string(kMethod) == "cd" ? RbmTrainingMethod::cd : RbmTrainingMethod::pcd;
  o.k = static_cast<int>(t.get_int(kK));
  o.batch_size = static_cast<int>(t.get_int(kBatchSize));
  o.learning_rate = t.get_double(kLearningRate);
  o.momentum = t.get_double(kMomentum);
  o.weight_decay = t.get_double(kWeightDecay);
  o.epochs = static_cast<int>(t.get_int(kEpochs));
  o.init_sd = t.get_double(kInitSd);
  o.seed = static_cast<std::uint64_t>(t.get_int(kSeed));
  return o;
}

RbmOutputSettings read_rbm_output_settings(Config& config, const std::string& weights_override) {
  auto out = config.section("output");
  out.check_known({&kOutputKeys});
  RbmOutputSettings s;
  s.weights = !weights_override.empty() ? weights_override : out.get_string(kWeights);
  s.history = out.get_string(kHistory);
  return s;
}

RbmEvaluateSettings read_rbm_evaluate_settings(Config& config) {
  auto e = config.section("evaluate");
  e.check_known({&evaluate_keys()});
  RbmEvaluateSettings s;
  s.method = e.get_enum<RbmEvaluateMethod>(kEvaluateMethod);
  s.ais = read_rbm_ais_settings(e);
  s.output = e.get_string(kEvaluateOutput);
  return s;
}

}  // namespace logz
