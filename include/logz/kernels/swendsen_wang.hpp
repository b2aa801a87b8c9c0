// Swendsen-Wang cluster moves for the ferromagnetic Ising (IsingTarget) and Potts (PottsTarget)
// lattices (Swendsen and Wang, PRL 58, 86, 1987). One step is one sweep: every bond joining two
// equal sites is opened with probability p (Ising 1 - exp(-2K), Potts 1 - exp(-K), K = beta J),
// and every cluster of sites joined by open bonds takes a fresh value drawn uniformly (a spin
// +-1, or one of the q colours). This is the Gibbs sampler of the Fortuin-Kasteleyn joint
// distribution of spins and bonds, so each sweep leaves the tempered distribution invariant and
// is reversible on the spins (reversed() is the kernel itself). Unlike single-site updates it
// does not slow down near the critical temperature.
//
// Each particle draws from its own stream: one 32-bit number per bond (thresholds resolved to
// 2^-32, as the Metropolis kernels' are), then one per cluster in order of its lowest site.
// KernelInfo counts one update per site visited (N per sweep) and those that changed value.
// Needs K >= 0 (ferromagnetic); a negative K is refused with InvalidArgument.
#pragma once

#include <cstddef>

#include "logz/core/kernel_for.hpp"
#include "logz/kernels/kernel_info.hpp"
#include "logz/models/ising.hpp"
#include "logz/models/potts.hpp"
#include "logz/random/philox.hpp"

namespace logz {

class SwendsenWang {
 public:
  explicit SwendsenWang(std::size_t sweeps = 1) : sweeps_(sweeps) {}

  SwendsenWang with_steps(std::size_t sweeps) const { return SwendsenWang(sweeps); }
  std::size_t steps() const { return sweeps_; }

  KernelInfo step(const IsingTarget& target, SpinBatch& batch, const BatchRandom& random,
                  StopToken stop = {}) const;
  KernelInfo step(const PottsTarget& target, PottsBatch& batch, const BatchRandom& random,
                  StopToken stop = {}) const;

 private:
  std::size_t sweeps_;
};

static_assert(KernelFor<SwendsenWang, IsingModel> && KernelFor<SwendsenWang, PottsModel>);

}  // namespace logz
