// Random-scan heat bath for the pairwise binary MRF (models/pairwise_mrf.hpp): `steps` times, a
// uniformly drawn unit i takes x_i = 1 with probability sigmoid(beta field_i), its exact
// conditional given the others. Each update satisfies detailed balance, so the kernel is
// reversible; it keeps every particle's local fields and energy up to date (O(n) an update).
#pragma once

#include <cstddef>

#include "logz/core/kernel_for.hpp"
#include "logz/kernels/kernel_info.hpp"
#include "logz/models/pairwise_mrf.hpp"
#include "logz/random/philox.hpp"

namespace logz {

class PairwiseMrfHeatBath {
 public:
  explicit PairwiseMrfHeatBath(std::size_t steps) : steps_(steps) {}
  PairwiseMrfHeatBath with_steps(std::size_t steps) const { return PairwiseMrfHeatBath(steps); }
  std::size_t steps() const { return steps_; }

  // Particle p draws from random.stream(p) for all its steps; attempted counts every update,
  // accepted those that changed the unit.
  KernelInfo step(const PairwiseMrfTarget& target, PairwiseMrfBatch& batch,
                  const BatchRandom& random) const;

 private:
  std::size_t steps_;
};

static_assert(KernelFor<PairwiseMrfHeatBath, PairwiseMrfPath>);

}  // namespace logz
