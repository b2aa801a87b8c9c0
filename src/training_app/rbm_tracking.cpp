#include "logz/training_app/rbm_tracking.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>

#include "logz/core/error.hpp"
#include "logz/exact/rbm_enumeration.hpp"
#include "logz/io/output_file.hpp"
#include "logz/models/rbm_base.hpp"

namespace logz {

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string csv_number(double x) { return std::isfinite(x) ? fmt::format("{:.6f}", x) : ""; }

}  // namespace

namespace {

const Key kMethod = Key::enumeration(
    "method", RbmTrackingMethod::none,
    "rts: follow log Z by Rao-Blackwellized tempered sampling while the RBM trains");
// The [tracking] defaults are RbmTrackingSettings' and its tracker's, RbmLogZTrackerOptions'
// (training/rbm_log_z_tracker.hpp).
const RbmTrackingSettings kTrackingDefaults;
const RbmLogZTrackerOptions& kTrackerDefaults = kTrackingDefaults.tracker;
const Key kNumTemperatures =
    Key::integer("num_temperatures", static_cast<std::int64_t>(kTrackerDefaults.num_temperatures),
                 2, 100000, "levels of the tracking ladder");
const Key kPriorSlope = Key::number("prior_slope", kTrackerDefaults.prior_slope, -1e3, 1e3,
                                    "the level prior's slope (0: uniform)");
const Key kNumChains =
    Key::integer("num_chains", static_cast<std::int64_t>(kTrackerDefaults.num_chains), 1, 1 << 24,
                 "tempered chains");
const Key kSweeps = Key::integer("sweeps", static_cast<std::int64_t>(kTrackerDefaults.sweeps), 1,
                                 1000000, "sweeps per tracking step");
const Key kEvery = Key::integer("every", kTrackingDefaults.every, 1, 1 << 30,
                                "parameter updates between tracking steps");
const Key kAlpha = Key::number("alpha", kTrackerDefaults.alpha, 1e-9, 1.0,
                               "the partial update's step (Carlson et al. 2016, section 3.3)");
const Key kInitialSweeps =
    Key::integer("initial_sweeps", static_cast<std::int64_t>(kTrackerDefaults.initial_sweeps), 1,
                 1000000, "sweeps of each initial iteration");
const Key kMaxInitialIterations =
    Key::integer("max_initial_iterations", kTrackerDefaults.max_initial_iterations, 1, 100000,
                 "at most this many initial iterations");
const Key kSeed = Key::integer("seed", static_cast<std::int64_t>(kTrackerDefaults.seed), 0,
                               INT64_MAX, "the tracker's seed");
const Key kThreads =
    Key::integer("threads", kTrackerDefaults.threads, 0, 4096, "worker threads; 0: all");
const Key kChunkSize =
    Key::integer("chunk_size", static_cast<std::int64_t>(kTrackerDefaults.chunk_size), 1, 1 << 20,
                 "chains per chunk (one GEMM)");
const Key kPrecision =
    Key::choice("precision", std::string(kTrackerDefaults.single_precision ? "float" : "double"),
                {"float", "double"}, "the tracker's arithmetic");
const Key kAisEvery = Key::integer("ais_every", kTrackingDefaults.ais_every, 0, 1 << 30,
                                   "an AIS check every this many epochs and at the last; 0: none");
const Key kExactMaxUnits =
    Key::integer("exact_max_units", kTrackingDefaults.exact_max_units, 0, 30,
                 "exact log Z per epoch when the smaller layer is this small");
const Key kCsv =
    Key::string("csv", Computed{"the weights file with .tracking.csv"}, "the per-epoch CSV");
const Key kPlotDir =
    Key::string("plot_dir", std::string(""), "where the tool draws the CSV (\"\": no plot)");

const KeyGroup& tracking_group() {
  static const KeyGroup g = [] {
    KeyGroup k{"tracking",
               "tracking",
               {&kMethod, &kNumTemperatures, &kPriorSlope, &kNumChains, &kSweeps, &kEvery, &kAlpha,
                &kInitialSweeps, &kMaxInitialIterations, &kSeed, &kThreads, &kChunkSize,
                &kPrecision, &kAisEvery}};
    for (const Key* a : rbm_ais_keys("ais_")) k.keys.push_back(a);
    k.keys.insert(k.keys.end(), {&kExactMaxUnits, &kCsv, &kPlotDir});
    return k;
  }();
  return g;
}

}  // namespace

const KeyGroup& tracking_keys() { return tracking_group(); }

RbmTrackingSettings read_rbm_tracking_settings(Config& config, const std::string& weights) {
  auto t = config.section("tracking");
  t.check_known({&tracking_group()});
  RbmTrackingSettings s;
  s.method = t.get_enum<RbmTrackingMethod>(kMethod);
  auto& o = s.tracker;
  o.num_temperatures = static_cast<std::size_t>(t.get_int(kNumTemperatures));
  o.prior_slope = t.get_double(kPriorSlope);
  o.num_chains = static_cast<std::size_t>(t.get_int(kNumChains));
  o.sweeps = static_cast<std::size_t>(t.get_int(kSweeps));
  s.every = static_cast<int>(t.get_int(kEvery));
  o.alpha = t.get_double(kAlpha);
  o.initial_sweeps = static_cast<std::size_t>(t.get_int(kInitialSweeps));
  o.max_initial_iterations = static_cast<int>(t.get_int(kMaxInitialIterations));
  o.seed = static_cast<std::uint64_t>(t.get_int(kSeed));
  o.threads = static_cast<int>(t.get_int(kThreads));
  o.chunk_size = static_cast<std::size_t>(t.get_int(kChunkSize));
  o.single_precision = t.get_string(kPrecision) == "float";
  s.ais_every = static_cast<int>(t.get_int(kAisEvery));
  s.ais = read_rbm_ais_settings(t, "ais_");
  s.exact_max_units = static_cast<int>(t.get_int(kExactMaxUnits));
  std::filesystem::path csv = weights;
  csv.replace_extension(".tracking.csv");
  s.csv = t.get_string(kCsv, csv.string());
  s.plot_dir = t.get_string(kPlotDir);
  return s;
}

RbmTrainingMonitor::RbmTrainingMonitor(RbmTrackingSettings settings, const Eigen::MatrixXd& train,
                                       const Eigen::MatrixXd& validation, int num_epochs, LogFn log)
    : s_(std::move(settings)),
      train_(train),
      validation_(validation),
      num_epochs_(num_epochs),
      log_(std::move(log)) {
  csv_ =
      "epoch,updates,log_z_rts,train_log_likelihood,validation_log_likelihood,log_z_ais,log_z_ais_"
      "std_error,"
      "log_z_exact,train_log_likelihood_exact,validation_log_likelihood_exact,max_level_deviation,"
      "tracking_seconds,training_seconds,check_seconds\n";
}

RbmTrainingMonitor::~RbmTrainingMonitor() = default;

void RbmTrainingMonitor::on_update(std::uint64_t update, const RbmParameters& rbm) {
  updates_ = update;
  if (!tracker_) {
    // The chains start at the first update's parameters (the initial weights are ~0).
    tracker_ =
        std::make_unique<RbmLogZTracker>(rbm, base_rate_rbm_base(train_.transpose()), s_.tracker);
    const bool converged = tracker_->initialize();
    if (log_)
      log_(fmt::format("tracking: {} initial iterations ({}), log Z = {:.4f}",
                       tracker_->initial_iterations(), converged ? "converged" : "not converged",
                       tracker_->log_z()));
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
  if (std::min(rbm.W.rows(), rbm.W.cols()) <= s_.exact_max_units)
    exact = exact::rbm_log_z(rbm, 0, s_.stop);
  if (s_.ais_every > 0 && (stats.epoch % s_.ais_every == 0 || stats.epoch == num_epochs_)) {
    RbmAisSettings a = s_.ais;
    a.exact_max_units = 0;  // computed above when wanted
    const RunResult r =
        rbm_ais_evaluation(rbm, train_, Eigen::MatrixXd(rbm.W.rows(), 0), a, nullptr, s_.stop);
    ais = r.estimates.front().log_z + r.base_log_z;
    ais_se = r.estimates.front().std_error;
  }
  const double check_seconds = seconds_since(check_start);

  const double tracker_seconds = tracker_->seconds() - last_tracker_seconds_;
  last_tracker_seconds_ = tracker_->seconds();
  const double tracking_seconds = tracker_seconds + eval_seconds;
  const double training_seconds =
      stats.seconds - tracker_seconds;  // the epoch's time includes on_update
  training_seconds_ += training_seconds;
  checks_seconds_ += check_seconds;
  csv_ += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", stats.epoch, updates_,
                      csv_number(log_z), csv_number(-train_f - log_z), csv_number(-valid_f - log_z),
                      csv_number(ais), csv_number(ais_se), csv_number(exact),
                      csv_number(-train_f - exact), csv_number(-valid_f - exact),
                      csv_number(tracker_->max_level_deviation()), csv_number(tracking_seconds),
                      csv_number(training_seconds), csv_number(check_seconds));
  if (log_) {
    std::string line = fmt::format("tracking: epoch {:>4}  log Z {:.3f}  train LL {:.3f}",
                                   stats.epoch, log_z, -train_f - log_z);
    if (validation_.cols() > 0) line += fmt::format("  valid LL {:.3f}", -valid_f - log_z);
    if (std::isfinite(ais)) line += fmt::format("  AIS {:.3f} +- {:.3f}", ais, ais_se);
    if (std::isfinite(exact)) line += fmt::format("  exact {:.3f}", exact);
    log_(line + fmt::format("  ({:.2f} s tracking, {:.2f} s training)", tracking_seconds,
                            training_seconds));
  }
}

RbmMonitorState RbmTrainingMonitor::state() const {
  RbmMonitorState out{std::nullopt,          csv_,    training_seconds_, checks_seconds_,
                      last_tracker_seconds_, updates_};
  if (tracker_) out.tracker = tracker_->state();
  return out;
}

void RbmTrainingMonitor::restore(const RbmMonitorState& saved) {
  tracker_.reset();
  if (saved.tracker)
    tracker_ = std::make_unique<RbmLogZTracker>(*saved.tracker,
                                                base_rate_rbm_base(train_.transpose()), s_.tracker);
  csv_ = saved.csv;
  training_seconds_ = saved.training_seconds;
  checks_seconds_ = saved.checks_seconds;
  last_tracker_seconds_ = saved.last_tracker_seconds;
  updates_ = saved.updates;
}

std::string RbmTrainingMonitor::finish() {
  if (!tracker_) return "";
  io::write_text_file(s_.csv, csv_);
  std::string out = fmt::format("wrote {} ({} tracking steps)", s_.csv, tracker_->steps());
  const double tracking = tracker_->seconds();
  out += fmt::format(
      "\ntracking took {:.2f} s beside {:.2f} s of training ({:.1f}%); AIS/exact checks {:.2f} s\n",
      tracking, training_seconds_, 100.0 * tracking / training_seconds_, checks_seconds_);
  return out;
}

}  // namespace logz
