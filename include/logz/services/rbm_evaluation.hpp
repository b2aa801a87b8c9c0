// log Z of an RBM held in memory by forward AIS from the base rate of its training data, with
// the exact value beside it when the smaller layer can be enumerated and the held-out set's
// log-likelihood: what `logz train rbm` runs after training ([evaluate]) and at the AIS
// checkpoints of tracking ([tracking] ais_*).
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <vector>

#include "logz/models/rbm_parameters.hpp"
#include "logz/parallel/ranks.hpp"
#include "logz/services/config.hpp"
#include "logz/services/results.hpp"

namespace logz {

struct RbmAisSettings {
  std::string schedule = "linear";  // or "salakhutdinov" (14,501 temperatures)
  std::string path = "marginal_v";  // "marginal_h" or "full"
  std::int64_t num_paths = 100, num_steps = 10000, seed = 1;
  int exact_max_units = 25;  // enumerate log Z when the smaller layer is at most this
};

// The keys num_paths, num_steps, schedule, path, seed, each with `prefix` ("" for [evaluate],
// "ais_" for [tracking]).
const std::vector<const Key*>& rbm_ais_keys(const std::string& prefix);
RbmAisSettings read_rbm_ais_settings(ConfigSection& section, const std::string& prefix = "");

// train and held_out: binary examples, one per column (held_out may have no columns). The AIS
// paths are split over `ranks` (nullptr: this process alone).
RunResult rbm_ais_evaluation(const RbmParameters& rbm, const Eigen::MatrixXd& train,
                             const Eigen::MatrixXd& held_out, const RbmAisSettings& settings,
                             Ranks* ranks = nullptr);

// "AIS log Z = ... (exact ..., validation log-likelihood ...)" lines for a terminal.
std::string rbm_ais_summary(const RunResult& r, const RbmAisSettings& settings);

}  // namespace logz
