// How simulated tempering moves its weights log Zhat_k between stages (Carlson et al. 2016),
// from the Rao-Blackwellized level probabilities log c_k (TemperingStats::log_c) and the
// prior log r_k of the ladder: the stopping rule of section 2.4, Tan's stochastic update and
// the partial update of the top level. The initial iterations (initial_iterations.hpp) and the
// log Z tracker of training run them; the RTS estimate (estimators/rts.hpp) reports the same
// deviation as a diagnostic.
#pragma once

#include <span>
#include <vector>

namespace logz {

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
