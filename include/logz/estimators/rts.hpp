// Partition functions from tempered samples (Carlson et al. 2016):
//   RTS:  log Z_k = log Zhat_k + log r_1 - log r_k + log c_k - log c_1        (eq. 12)
// with c_k the Rao-Blackwellized level probabilities (eq. 9), and
//   TS:   the same with raw visit counts, c_k proportional to n_k + 0.1.
// Errors: eq. 16 with Var[c_k], Cov[c_1, c_k] estimated from the spread between
// independent chains (se_method "between_chains"); the bias approximation of
// eq. 15 is reported beside it. All values are log(Z_k / Z_1) relative to the
// base (level 1, t = 0).
#pragma once

#include <span>
#include <vector>

#include "logz/core/estimate.hpp"
#include "logz/tempering/log_z_hat_updates.hpp"  // the updates of log Zhat_k, still reachable here
#include "logz/tempering/tempering_stats.hpp"

namespace logz {

struct LadderEstimates {
  std::string method;
  std::vector<double> log_z;      // log(Z_k / Z_1), k = 1..K (first is 0)
  std::vector<double> std_error;  // per level (0 at k = 1 by construction, NaN if unknown)
  std::vector<double> bias;       // eq. 15 approximation (RTS), NaN otherwise
  Estimate last;                  // the target level K as an Estimate

  // Fills `last` from level K (method, log_z, std_error) with how the error was estimated.
  Estimate& summarise_last(const std::string& se_method);
};

LadderEstimates rts_ladder(const TemperingStats& stats, std::span<const double> log_z_hat,
                           std::span<const double> log_prior);
LadderEstimates ts_ladder(const TemperingStats& stats, std::span<const double> log_z_hat,
                          std::span<const double> log_prior);

}  // namespace logz
