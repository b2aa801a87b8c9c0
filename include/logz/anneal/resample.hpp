// Systematic resampling of particles by importance weight: used to start
// reverse runs from forward end points ("resampled" start). The result is an
// approximate target sample only; its reverse works are biased by how far the
// forward end points are from the target, so docs call it approximate.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "logz/random/philox.hpp"

namespace logz {

// num_draws indices drawn with probability proportional to exp(log_weights),
// by systematic resampling with one uniform from rng (deterministic given rng).
std::vector<std::size_t> systematic_resample(std::span<const double> log_weights,
                                             std::size_t num_draws, RandomStream& rng);

}  // namespace logz
