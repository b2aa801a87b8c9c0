// Single-site Metropolis for the Potts model (PottsTarget): propose a new
// colour for one site uniformly among the other q - 1 (a symmetric proposal)
// and accept with probability min(1, exp(-Delta E)) = min(1, exp(K d)) for the
// tempered energy, d being the change in the site's number of equal-colour
// bonds. Site orders and their reversal as for SpinFlipMetropolis: "random"
// (every step reversible) or "checkerboard" (one step = a sweep, colour 0 then
// colour 1; the reversed kernel sweeps colour 1 then 0 in reverse site order).
#pragma once

#include <cstddef>

#include "logz/core/kernel_for.hpp"
#include "logz/kernels/kernel_info.hpp"
#include "logz/kernels/site_order.hpp"
#include "logz/models/potts.hpp"
#include "logz/random/philox.hpp"

namespace logz {

class PottsMetropolis {
 public:
  // steps: single-site attempts (random order) or full sweeps (checkerboard).
  PottsMetropolis(SiteOrder order, std::size_t steps, bool reversed = false);

  // Applies the kernel to every particle of the batch; particle p draws from
  // random.stream(p). Keeps each particle's equal-bond count up to date.
  KernelInfo step(const PottsTarget& target, PottsBatch& batch, const BatchRandom& random) const;
  // The time reversal of this kernel (the same kernel for random order).
  PottsMetropolis reversed() const { return PottsMetropolis(order_, steps_, !reversed_); }
  // A kernel of the same kind doing `steps` steps (for equilibration runs).
  PottsMetropolis with_steps(std::size_t steps) const {
    return PottsMetropolis(order_, steps, reversed_);
  }
  SiteOrder order() const { return order_; }
  std::size_t steps() const { return steps_; }

 private:
  SiteOrder order_;
  std::size_t steps_;
  bool reversed_;
};

static_assert(KernelFor<PottsMetropolis, PottsModel>);

}  // namespace logz
