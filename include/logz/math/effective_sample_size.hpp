// Effective sample sizes of Markov chain draws: how many independent draws would give the
// mean the same variance, N / tau with tau the integrated autocorrelation time. Both
// truncate the autocorrelation sum by Geyer's (1992) initial positive and monotone sequences;
// NaN when there are fewer than 4 draws or they do not vary.
#pragma once

#include <cstddef>
#include <span>

namespace logz {

// One chain: Geyer's initial monotone sequence on the chain's own autocovariances
// (the posterior draws of the histogram estimator).
double effective_sample_size(std::span<const double> chain);

// One scalar quantity from M chains of N draws each, x[t * stride_t + m * stride_m]: the
// multi-chain autocorrelation of Vehtari et al. (2021) (within-chain autocovariances and the
// between-chain variance), without splitting or ranking; tau is kept >= 1 / log10(N M).
double effective_sample_size(const double* x, std::size_t num_draws, std::size_t num_chains,
                             std::size_t stride_t, std::size_t stride_m);

}  // namespace logz
