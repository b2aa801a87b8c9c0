// Single-site Metropolis for +-1 spin lattices (IsingTarget): propose flipping
// one spin, accept with probability min(1, exp(-Delta E)) for the tempered
// energy. Site order "random" (a uniformly random site per step, as in Habeck
// 2017; every step is reversible) or "checkerboard" (one step = a full sweep,
// colour 0 then colour 1; its time reversal, colour 1 then 0, is what reverse
// annealing runs). A step never knows it is part of an annealing run.
#pragma once

#include <cstddef>
#include <cstdint>

#include "logz/core/kernel_for.hpp"
#include "logz/kernels/kernel_info.hpp"
#include "logz/kernels/site_kernel.hpp"
#include "logz/kernels/site_order.hpp"
#include "logz/models/ising.hpp"
#include "logz/random/philox.hpp"

namespace logz {

class SpinFlipMetropolis : public SiteKernel<SpinFlipMetropolis> {
 public:
  using SiteKernel::SiteKernel;

  // Applies the kernel to every particle of the batch; particle p draws from random.stream(p).
  KernelInfo step(const IsingTarget& target, SpinBatch& batch, const BatchRandom& random,
                  StopToken stop = {}) const;
};

static_assert(KernelFor<SpinFlipMetropolis, IsingModel>);

}  // namespace logz
