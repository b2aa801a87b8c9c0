#include "logz/services/rbm_tracking.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>

#include "logz/core/error.hpp"
#include "logz/exact/rbm_enumeration.hpp"
#include "logz/models/rbm_base.hpp"
#include "logz/io/text_file.hpp"

namespace logz {

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string csv_number(double x) { return std::isfinite(x) ? fmt::format("{:.6f}", x) : ""; }

}  // namespace

RbmTrackingSettings read_rbm_tracking_settings(Config& config, const std::string& weights) {
  auto t = config.section("tracking");
  t.check_known({"method", "num_temperatures", "prior_slope", "num_chains", "sweeps", "every", "alpha",
                 "initial_sweeps", "max_initial_iterations", "seed", "threads", "chunk_size", "precision",
                 "ais_every", "ais_num_paths", "ais_num_steps", "ais_schedule", "ais_path", "ais_seed",
                 "exact_max_units", "csv", "plot_dir"});
  RbmTrackingSettings s;
  s.method = t.get_string("method", "none", {"none", "rts"});
  auto& o = s.tracker;
  o.num_temperatures = static_cast<std::size_t>(t.get_int("num_temperatures", 100, 2, 100000));
  o.prior_slope = t.get_double("prior_slope", 0.0, -1e3, 1e3);
  o.num_chains = static_cast<std::size_t>(t.get_int("num_chains", 100, 1, 1 << 24));
  o.sweeps = static_cast<std::size_t>(t.get_int("sweeps", 1, 1, 1000000));
  s.every = static_cast<int>(t.get_int("every", 10, 1, 1 << 30));
  o.alpha = t.get_double("alpha", 0.2, 1e-9, 1.0);
  o.initial_sweeps = static_cast<std::size_t>(t.get_int("initial_sweeps", 50, 1, 1000000));
  o.max_initial_iterations = static_cast<int>(t.get_int("max_initial_iterations", 50, 1, 100000));
  o.seed = static_cast<std::uint64_t>(t.get_int("seed", 1, 0));
  o.threads = static_cast<int>(t.get_int("threads", 0, 0, 4096));
  o.chunk_size = static_cast<std::size_t>(t.get_int("chunk_size", 50, 1, 1 << 20));
  o.single_precision = t.get_string("precision", "float", {"float", "double"}) == "float";
  s.ais_every = static_cast<int>(t.get_int("ais_every", 0, 0, 1 << 30));
  s.ais = read_rbm_ais_settings(t, "ais_");
  s.exact_max_units = static_cast<int>(t.get_int("exact_max_units", 20, 0, 30));
  std::filesystem::path csv = weights;
  csv.replace_extension(".tracking.csv");
  s.csv = t.get_string("csv", csv.string());
  s.plot_dir = t.get_string("plot_dir", "");
  return s;
}

RbmTrainingMonitor::RbmTrainingMonitor(RbmTrackingSettings settings, const Eigen::MatrixXd& train,
                                       const Eigen::MatrixXd& validation, int num_epochs, bool quiet)
    : s_(std::move(settings)), train_(train), validation_(validation), num_epochs_(num_epochs), quiet_(quiet) {
  csv_ =
      "epoch,updates,log_z_rts,train_log_likelihood,validation_log_likelihood,log_z_ais,log_z_ais_std_error,"
      "log_z_exact,train_log_likelihood_exact,validation_log_likelihood_exact,max_level_deviation,"
      "tracking_seconds,training_seconds,check_seconds\n";
}

RbmTrainingMonitor::~RbmTrainingMonitor() = default;

void RbmTrainingMonitor::on_update(std::uint64_t update, const RbmParameters& rbm) {
  updates_ = update;
  if (!tracker_) {
    // The chains start at the first update's parameters (the initial weights are ~0).
    tracker_ = std::make_unique<RbmLogZTracker>(rbm, base_rate_rbm_base(train_.transpose()), s_.tracker);
    const bool converged = tracker_->initialize();
    if (!quiet_)
      std::cerr << fmt::format("tracking: {} initial iterations ({}), log Z = {:.4f}\n",
                               tracker_->initial_iterations(), converged ? "converged" : "not converged",
                               tracker_->log_z());
    return;
  }
  if (update % static_cast<std::uint64_t>(s_.every) == 0) tracker_->update(rbm);
}

void RbmTrainingMonitor::on_epoch(const RbmEpochStats& stats, const RbmParameters& rbm) {
  if (!tracker_) return;
  // Log-likelihoods per example: mean of -F(v) over each set less log Z.
  const auto start = std::chrono::steady_clock::now();
  const double log_z = tracker_->log_z();
  const double train_f = rbm_free_energy(rbm, train_).mean();
  const double valid_f = validation_.cols() > 0 ? rbm_free_energy(rbm, validation_).mean() : kNaN;
  const double eval_seconds = seconds_since(start);

  const auto check_start = std::chrono::steady_clock::now();
  double exact = kNaN, ais = kNaN, ais_se = kNaN;
  if (std::min(rbm.W.rows(), rbm.W.cols()) <= s_.exact_max_units) exact = exact::rbm_log_z(rbm);
  if (s_.ais_every > 0 && (stats.epoch % s_.ais_every == 0 || stats.epoch == num_epochs_)) {
    RbmAisSettings a = s_.ais;
    a.exact_max_units = 0;  // computed above when wanted
    const ExperimentResult r = rbm_ais_evaluation(rbm, train_, Eigen::MatrixXd(rbm.W.rows(), 0), a);
    ais = r.estimates.front().log_z + r.base_log_z;
    ais_se = r.estimates.front().std_error;
  }
  const double check_seconds = seconds_since(check_start);

  const double tracker_seconds = tracker_->seconds() - last_tracker_seconds_;
  last_tracker_seconds_ = tracker_->seconds();
  const double tracking_seconds = tracker_seconds + eval_seconds;
  const double training_seconds = stats.seconds - tracker_seconds;  // the epoch's time includes on_update
  training_seconds_ += training_seconds;
  checks_seconds_ += check_seconds;
  csv_ += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", stats.epoch, updates_, csv_number(log_z),
                      csv_number(-train_f - log_z), csv_number(-valid_f - log_z), csv_number(ais),
                      csv_number(ais_se), csv_number(exact), csv_number(-train_f - exact),
                      csv_number(-valid_f - exact), csv_number(tracker_->max_level_deviation()),
                      csv_number(tracking_seconds), csv_number(training_seconds), csv_number(check_seconds));
  if (!quiet_) {
    std::string line = fmt::format("tracking: epoch {:>4}  log Z {:.3f}  train LL {:.3f}", stats.epoch, log_z,
                                   -train_f - log_z);
    if (validation_.cols() > 0) line += fmt::format("  valid LL {:.3f}", -valid_f - log_z);
    if (std::isfinite(ais)) line += fmt::format("  AIS {:.3f} +- {:.3f}", ais, ais_se);
    if (std::isfinite(exact)) line += fmt::format("  exact {:.3f}", exact);
    std::cerr << line << fmt::format("  ({:.2f} s tracking, {:.2f} s training)\n", tracking_seconds,
                                     training_seconds);
  }
}

std::string RbmTrainingMonitor::finish() {
  if (!tracker_) return "";
  io::write_text_file(s_.csv, csv_);
  std::string out = fmt::format("wrote {} ({} tracking steps)", s_.csv, tracker_->steps());
  const double tracking = tracker_->seconds();
  out += fmt::format("\ntracking took {:.2f} s beside {:.2f} s of training ({:.1f}%); AIS/exact checks {:.2f} s\n",
                     tracking, training_seconds_, 100.0 * tracking / training_seconds_, checks_seconds_);
  return out;
}

}  // namespace logz
