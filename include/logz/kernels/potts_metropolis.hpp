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
#include "logz/kernels/site_kernel.hpp"
#include "logz/kernels/site_order.hpp"
#include "logz/models/potts.hpp"
#include "logz/random/philox.hpp"

namespace logz {

class PottsMetropolis : public SiteKernel<PottsMetropolis> {
 public:
  using SiteKernel::SiteKernel;

  // Applies the kernel to every particle of the batch; particle p draws from
  // random.stream(p). Keeps each particle's equal-bond count up to date.
  KernelInfo step(const PottsTarget& target, PottsBatch& batch, const BatchRandom& random,
                  StopToken stop = {}) const;
};

static_assert(KernelFor<PottsMetropolis, PottsModel>);

}  // namespace logz
