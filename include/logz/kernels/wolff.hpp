// Wolff single-cluster moves for the ferromagnetic Ising (IsingTarget) and Potts (PottsTarget)
// lattices (Wolff, PRL 62, 361, 1989). One step grows one cluster from a uniformly random site:
// every bond from a cluster site to a neighbour with the cluster's old value is opened with
// probability p (Ising 1 - exp(-2K), Potts 1 - exp(-K), K = beta J), and the whole cluster takes
// a new value (Ising: the flipped spin; Potts: one of the other q - 1 colours, uniformly). Each
// step satisfies detailed balance, so the kernel is its own time reversal. Large clusters near
// and below the critical temperature move the whole lattice at once; at high temperature a
// cluster is a site or two, so a step is cheap there.
//
// Each particle draws from its own stream: the seed site, the new value, then one 32-bit number
// per bond tested (thresholds resolved to 2^-32). KernelInfo counts every site a cluster visits
// as an update (all of them change value), which is also the run's budget. Needs K >= 0
// (ferromagnetic); a negative K is refused with InvalidArgument.
#pragma once

#include <cstddef>

#include "logz/core/kernel_for.hpp"
#include "logz/kernels/kernel_info.hpp"
#include "logz/models/ising.hpp"
#include "logz/models/potts.hpp"
#include "logz/random/philox.hpp"

namespace logz {

class Wolff {
 public:
  explicit Wolff(std::size_t clusters = 1) : clusters_(clusters) {}

  Wolff with_steps(std::size_t clusters) const { return Wolff(clusters); }
  std::size_t steps() const { return clusters_; }

  KernelInfo step(const IsingTarget& target, SpinBatch& batch, const BatchRandom& random,
                  StopToken stop = {}) const;
  KernelInfo step(const PottsTarget& target, PottsBatch& batch, const BatchRandom& random,
                  StopToken stop = {}) const;

 private:
  std::size_t clusters_;
};

static_assert(KernelFor<Wolff, IsingModel> && KernelFor<Wolff, PottsModel>);

}  // namespace logz
