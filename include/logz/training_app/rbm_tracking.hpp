// [tracking] of `logz train rbm`: log Z followed by Rao-Blackwellized tempered sampling while the
// RBM trains (training/rbm_log_z_tracker.hpp), the training and validation log-likelihoods
// written per epoch to a CSV (which the command-line tool draws like Carlson et al. 2016, Fig. 5),
// AIS checks at chosen epochs, and the time tracking took beside the time training took. Keys:
// docs/training.md.
#pragma once

#include <Eigen/Core>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "logz/config/config.hpp"
#include "logz/core/enum_names.hpp"
#include "logz/core/stop_request.hpp"
#include "logz/training/rbm_log_z_tracker.hpp"
#include "logz/training/rbm_trainer.hpp"
#include "logz/training_app/rbm_evaluation.hpp"

namespace logz {

// [tracking] method: none, or log Z followed by Rao-Blackwellized tempered sampling.
LOGZ_NAMED_ENUM(RbmTrackingMethod, none, rts);

struct RbmTrackingSettings {
  RbmTrackingMethod method = RbmTrackingMethod::none;
  RbmLogZTrackerOptions tracker;
  int every = 10;     // parameter updates between tracking steps
  int ais_every = 0;  // AIS check every this many epochs (and at the last); 0: none
  RbmAisSettings ais;
  int exact_max_units = 20;   // exact log Z per epoch when the smaller layer is this small
  std::string csv, plot_dir;  // plot_dir: where the tool draws the CSV; "": no plot
  StopToken stop;  // the front end's stop request (core/stop_request.hpp): the AIS checks stop
};

const KeyGroup& tracking_keys();

// `weights`: the .npz being written; the CSV defaults to it with ".tracking.csv" instead.
RbmTrackingSettings read_rbm_tracking_settings(Config& config, const std::string& weights);

// What a monitor holds between epochs, for checkpoints.
struct RbmMonitorState {
  std::optional<RbmLogZTrackerState> tracker;  // none before the first update
  std::string csv;
  double training_seconds = 0.0, checks_seconds = 0.0, last_tracker_seconds = 0.0;
  std::uint64_t updates = 0;
};

// Hooks for train_rbm: on_update after every update, on_epoch after every epoch. Progress lines
// go to `log` (none when it is empty).
class RbmTrainingMonitor {
 public:
  RbmMonitorState state() const;
  // Continues from a state taken from a monitor of the same settings and data.
  void restore(const RbmMonitorState& saved);
  using LogFn = std::function<void(const std::string&)>;
  RbmTrainingMonitor(RbmTrackingSettings settings, const Eigen::MatrixXd& train,
                     const Eigen::MatrixXd& validation, int num_epochs, LogFn log);
  ~RbmTrainingMonitor();
  void on_update(std::uint64_t update, const RbmParameters& rbm);
  void on_epoch(const RbmEpochStats& stats, const RbmParameters& rbm);
  // Writes the CSV; returns a summary line (tracking time / training time).
  std::string finish();
  // Whether anything was tracked (and finish() writes the CSV): not when no update was made.
  bool tracked() const { return tracker_ != nullptr; }

 private:
  RbmTrackingSettings s_;
  const Eigen::MatrixXd& train_;
  const Eigen::MatrixXd& validation_;
  int num_epochs_;
  LogFn log_;
  std::unique_ptr<RbmLogZTracker> tracker_;
  std::string csv_;
  double training_seconds_ = 0.0, checks_seconds_ = 0.0;
  double last_tracker_seconds_ = 0.0;
  std::uint64_t updates_ = 0;
};

}  // namespace logz
