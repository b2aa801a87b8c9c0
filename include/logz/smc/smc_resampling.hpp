// How SMC resamples its particles by weight. Systematic resampling (one uniform; the least
// added noise) is anneal/resample.hpp's. Multinomial resampling draws every ancestor
// independently: the genealogy error bar (smc/genealogy_variance.hpp) is derived for it, so
// with it the error bar is unbiased; with systematic resampling the genealogy coalesces more
// slowly than that estimator assumes and it tends to read low.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "logz/core/enum_names.hpp"
#include "logz/random/philox.hpp"

namespace logz {

LOGZ_NAMED_ENUM(SmcResampling, multinomial, systematic);

// `count` ancestor indices (0: N = log_weights.size()), in increasing order, drawn with
// probabilities proportional to exp(log_weights) from `rng` alone (deterministic given it).
std::vector<std::size_t> multinomial_resample(std::span<const double> log_weights,
                                              RandomStream& rng, std::size_t count = 0);

std::vector<std::size_t> resample_ancestors(SmcResampling scheme,
                                            std::span<const double> log_weights, RandomStream& rng,
                                            std::size_t count = 0);

}  // namespace logz
