// log Z of an RBM held in memory by forward AIS from the base rate of its training data, with
// the exact value beside it when the smaller layer can be enumerated and the held-out set's
// log-likelihood: what `logz train rbm` runs after training ([evaluate]) and at the AIS
// checkpoints of tracking ([tracking] ais_*).
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <vector>

#include "logz/anneal/annealer.hpp"
#include "logz/config/config.hpp"
#include "logz/core/enum_names.hpp"
#include "logz/core/stop_request.hpp"
#include "logz/exact/rbm_enumeration.hpp"
#include "logz/models/rbm_parameters.hpp"
#include "logz/parallel/ranks.hpp"
#include "logz/random/default_seed.hpp"
#include "logz/services/results.hpp"

namespace logz {

// The AIS schedules: linear in num_steps, or Salakhutdinov & Murray's 14,501 temperatures.
LOGZ_NAMED_ENUM(RbmAisSchedule, linear, salakhutdinov);

struct RbmAisSettings {
  RbmAisSchedule schedule = RbmAisSchedule::linear;
  std::string path = "marginal_v";  // "marginal_h" or "full"
  // The [evaluate] (and [tracking] ais_*) keys take their defaults from here; paths and seed
  // default as a [run]'s do (anneal/annealer.hpp).
  std::int64_t num_paths = static_cast<std::int64_t>(AnnealOptions{}.num_paths);
  std::int64_t num_steps = 10000;
  std::int64_t seed = static_cast<std::int64_t>(kDefaultSeed);
  // enumerate log Z when the smaller layer is at most this
  int exact_max_units = exact::kRbmExactMaxUnitsDefault;
};

// The keys num_paths, num_steps, schedule, path, seed, each with `prefix` ("" for [evaluate],
// "ais_" for [tracking]).
const std::vector<const Key*>& rbm_ais_keys(const std::string& prefix);
RbmAisSettings read_rbm_ais_settings(ConfigSection& section, const std::string& prefix = "");

// train and held_out: binary examples, one per column (held_out may have no columns). The AIS
// paths are split over `ranks` (nullptr: this process alone); the run stops once `stop` is
// requested (core/stop_request.hpp).
RunResult rbm_ais_evaluation(const RbmParameters& rbm, const Eigen::MatrixXd& train,
                             const Eigen::MatrixXd& held_out, const RbmAisSettings& settings,
                             Ranks* ranks = nullptr, StopToken stop = {});

// "AIS log Z = ... (exact ..., validation log-likelihood ...)" lines for a terminal.
std::string rbm_ais_summary(const RunResult& r, const RbmAisSettings& settings);

}  // namespace logz
