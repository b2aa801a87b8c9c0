// Tracking log Z of an RBM while it trains (Carlson et al. 2016, section 4.4): simulated
// tempering chains over the joint (v, h) path from a base-rate model to the current RBM keep
// their states across parameter updates. A tracking step, given new parameters:
// 1. reweights: the chains, weighted by q(t_k | x_i) under the old parameters, are samples
//    of level k, so log Zhat_k += log [sum_i q_ik exp(-t_k dE_i) / sum_i q_ik] with dE_i the
//    change of chain i's energy (E + a0.v) (importance sampling between nearby models);
// 2. makes `sweeps` block Gibbs sweeps under the new parameters;
// 3. moves the estimates part of the way to the RTS estimate of those sweeps (eq. 24,
//    alpha = 0.2): log Zhat_k += alpha (log r_1 - log r_k + log c_k - log c_1) for every k.
// The paper has only step 3, for Zhat_K. Without step 1 the estimate lags a fast-changing model
// by many nats: the level occupations that eq. 24 reads move by diffusion across K levels, far
// slower than a few sweeps per update (measured: docs/training.md). The intermediate levels
// need the update too, or the chains stop visiting levels whose Zhat_k fall behind.
// log Z of the RBM = log Z_base + log Zhat_K - log Zhat_1 (Zhat_1 = 1 stays fixed).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "logz/models/rbm_base.hpp"
#include "logz/models/rbm_parameters.hpp"
#include "logz/random/default_seed.hpp"
#include "logz/tempering/simulated_tempering.hpp"

namespace logz {

struct RbmLogZTrackerOptions {
  std::size_t num_temperatures = 100;  // K, linear ladder
  double prior_slope = 0.0;            // r_k proportional to exp(slope t_k); 0: uniform
  std::size_t num_chains = 100;
  std::size_t sweeps = 1;           // Gibbs sweeps per tracking step
  double alpha = 0.2;               // eq. 24
  std::size_t initial_sweeps = 50;  // per initial iteration (section 2.4)
  int max_initial_iterations = 50;
  std::uint64_t seed = kDefaultSeed;
  int threads = 0;
  std::size_t chunk_size = 50;
  bool single_precision = true;  // float GEMMs (statistics in double)
};

// What a tracker holds between steps, for checkpoints: the parameters its chains run under,
// the chains, log Zhat and its counters.
struct RbmLogZTrackerState {
  RbmParameters parameters;
  TemperingChains chains;
  std::vector<double> log_z_hat;
  double deviation = 0.0, seconds = 0.0;
  int initial_iterations = 0;
  std::size_t steps = 0;
};

class RbmLogZTracker {
 public:
  RbmLogZTracker(const RbmParameters& initial, RbmBase base, const RbmLogZTrackerOptions& options);
  // A tracker continuing from `saved` (taken by state() from one with the same base and
  // options); InvalidArgument when the saved chains or log Zhat do not fit them.
  RbmLogZTracker(const RbmLogZTrackerState& saved, RbmBase base,
                 const RbmLogZTrackerOptions& options);
  RbmLogZTrackerState state() const;
  ~RbmLogZTracker();
  RbmLogZTracker(const RbmLogZTracker&) = delete;
  RbmLogZTracker& operator=(const RbmLogZTracker&) = delete;

  // The initial iterations at the current parameters (from Zhat_k = 1); true when they met
  // the stopping rule max_k |r_k - c_k| < 0.1 / K.
  bool initialize();
  int initial_iterations() const { return initial_iterations_; }
  // The parameters changed: `sweeps` sweeps under them, then eq. 24 on every level.
  void update(const RbmParameters& parameters);

  double log_z() const;  // absolute log Z of the current RBM
  const std::vector<double>& log_z_hat() const { return log_z_hat_; }
  double max_level_deviation() const { return deviation_; }  // of the last step's c_k
  double seconds() const { return seconds_; }                // wall time spent in the tracker
  std::size_t steps() const { return steps_; }

 private:
  struct Impl;
  // Step 1 above, from every chain's E + a0.v before and after the parameter change.
  void reweight(const std::vector<double>& before, const std::vector<double>& after);

  std::unique_ptr<Impl> impl_;
  RbmParameters parameters_;  // those the chains run under
  std::vector<double> log_z_hat_;
  double base_log_z_ = 0.0, deviation_ = 0.0, seconds_ = 0.0;
  int initial_iterations_ = 0;
  std::size_t steps_ = 0;
  RbmLogZTrackerOptions options_;
};

}  // namespace logz
