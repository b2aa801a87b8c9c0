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

// The stopping rule of section 2.4: max_k |r_k - c_k|.
double max_level_deviation(std::span<const double> log_c, std::span<const double> log_prior);

// Tan et al. (2016) stochastic update (eq. 19): log Zhat_k += gamma (c_k / r_k - c_1 / r_1).
std::vector<double> tan_update(std::span<const double> log_z_hat, std::span<const double> log_c,
                               std::span<const double> log_prior, double gamma);

// The partial update of eq. 24 for the top level while parameters change:
// log Zhat_K <- log Zhat_K + alpha (log r_1 - log r_K + log c_K - log c_1).
double partial_update(double log_z_hat_last, std::span<const double> log_c,
                      std::span<const double> log_prior, double alpha);

}  // namespace logz
