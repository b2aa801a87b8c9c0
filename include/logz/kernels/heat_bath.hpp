// Heat-bath (Gibbs) single-site kernels for the Ising (IsingTarget) and Potts
// (PottsTarget) lattices: each update draws the site's value afresh from its
// conditional distribution given its neighbours, P(s_i = +1 | h) =
// 1 / (1 + exp(-2 K h)) for Ising, P(x_i = c | rest) proportional to
// exp(K n_c) for Potts (n_c = the site's bonds to colour c). Every update
// leaves the target invariant and satisfies detailed balance. Site orders as
// for SpinFlipMetropolis: "random" (a uniformly random site per step) or
// "checkerboard" (one step = a sweep, colour 0 then colour 1; the reversed
// kernel sweeps colour 1 then 0 in reverse site order). Probabilities are
// resolved to 2^-32, as the Metropolis thresholds are. KernelInfo counts
// every update as attempted and those that changed the value as accepted.
#pragma once

#include <cstddef>

#include "logz/core/kernel_for.hpp"
#include "logz/kernels/kernel_info.hpp"
#include "logz/kernels/site_kernel.hpp"
#include "logz/kernels/site_order.hpp"
#include "logz/models/ising.hpp"
#include "logz/models/potts.hpp"
#include "logz/models/potts_field_path.hpp"
#include "logz/random/philox.hpp"

namespace logz {

class HeatBath : public SiteKernel<HeatBath> {
 public:
  using SiteKernel::SiteKernel;

  // Applies the kernel to every particle of the batch; particle p draws from
  // random.stream(p). Keeps each particle's bond sum / equal-bond count up to date.
  KernelInfo step(const IsingTarget& target, SpinBatch& batch, const BatchRandom& random,
                  StopToken stop = {}) const;
  KernelInfo step(const PottsTarget& target, PottsBatch& batch, const BatchRandom& random,
                  StopToken stop = {}) const;
  // The Potts model with a field on colour 0 (models/potts_field_path.hpp): P(x_i = c | rest)
  // proportional to exp(K n_c + h [c = 0]).
  KernelInfo step(const PottsFieldTarget& target, PottsBatch& batch, const BatchRandom& random,
                  StopToken stop = {}) const;
};

static_assert(KernelFor<HeatBath, IsingModel> && KernelFor<HeatBath, PottsModel> &&
              KernelFor<HeatBath, PottsFieldPath>);

}  // namespace logz
