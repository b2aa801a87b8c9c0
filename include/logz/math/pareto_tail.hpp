// The tail of importance weights: Pareto k-hat (Vehtari, Simpson, Gelman, Yao & Gabry,
// "Pareto smoothed importance sampling", 2015/2024). A generalized Pareto distribution is
// fitted to the largest weights (Zhang & Stephens 2009, with the PSIS weak prior toward
// k = 0.5); its shape k is the reciprocal of the tail index. With k < 1/2 the weights have
// finite variance and the delta-method SE of log mean w means what it says; above
// min(1 - 1/log10(S), 0.7) the estimate is unreliable and its SE too small, however many
// samples there seem to be (heavy-tailed log-weights, e.g. AIS on a Student-t product of
// experts).
#pragma once

#include <span>

namespace logz {

// k-hat of the weights exp(log_w): the fit to the M = ceil(min(S/5, 3 sqrt(S))) largest
// weights above the next one; NaN if S < 10 or the tail is constant.
double pareto_k_hat(std::span<const double> log_w);

// The k-hat above which an estimate from S weights is unreliable: min(1 - 1/log10(S), 0.7).
double pareto_k_threshold(std::size_t num_samples);

}  // namespace logz
