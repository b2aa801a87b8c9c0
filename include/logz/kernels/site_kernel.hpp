// What the single-site lattice kernels share (SpinFlipMetropolis, PottsMetropolis, HeatBath):
// a site order (kernels/site_order.hpp), a number of steps (single-site updates in random
// order, full sweeps in checkerboard order), the direction of checkerboard sweeps (reversed()
// gives the time reversal that reverse annealing applies), and the loop that visits the sites
// of every particle and keeps its bond sum up to date. A kernel derives from
// SiteKernel<Itself> and writes only its single-site update.
#pragma once

#include <cstddef>
#include <cstdint>

#include "logz/core/stop_request.hpp"
#include "logz/kernels/kernel_info.hpp"
#include "logz/kernels/site_order.hpp"
#include "logz/models/lattice_batch.hpp"
#include "logz/models/torus_lattice.hpp"
#include "logz/random/philox.hpp"

namespace logz {

template <class Kernel>
class SiteKernel {
 public:
  // steps: single-site updates (random order) or full sweeps (checkerboard).
  SiteKernel(SiteOrder order, std::size_t steps, bool reversed = false)
      : order_(order), steps_(steps), reversed_(reversed) {}

  // The time reversal of this kernel (the same kernel for random order).
  Kernel reversed() const { return Kernel(order_, steps_, !reversed_); }
  // A kernel of the same kind doing `steps` steps (for equilibration runs).
  Kernel with_steps(std::size_t steps) const { return Kernel(order_, steps, reversed_); }
  SiteOrder order() const { return order_; }
  std::size_t steps() const { return steps_; }

 protected:
  // Whether sweeps run in the reversed order (colour 1 first, sites in decreasing order).
  bool is_reversed() const { return reversed_; }

  // Applies update(sites, i, rng, delta) -> bool (the value changed) to every site this kernel
  // visits, particle after particle; particle p draws from random.stream(p), the site index
  // first in random order. update adds the change of the bond sum to delta. KernelInfo counts
  // every update as attempted and those that changed a value as accepted. Throws Stopped when
  // `stop` is requested, checked every 2^20 updates (random order) or every sweep after the first.
  template <class Site, class Update>
  KernelInfo update_sites(const TorusLattice& lattice, LatticeBatch<Site>& batch,
                          const BatchRandom& random, StopToken stop, Update&& update) const {
    KernelInfo info;
    for (std::size_t p = 0; p < batch.num_particles(); ++p) {
      RandomStream rng = random.stream(p);
      Site* x = batch.sites(p);
      std::int64_t delta = 0;
      info += visit_sites(lattice, rng, stop, [&](int i) { return update(x, i, rng, delta); });
      batch.bond_sum(p) += delta;
    }
    return info;
  }

 private:
  // Calls visit(i) -> bool (changed) for every site in this kernel's order; counts the visits
  // and the changes. The counts stay local here: a site store may alias anything a lambda
  // holds by reference, which would keep them in memory.
  template <class Visit>
  KernelInfo visit_sites(const TorusLattice& lattice, RandomStream& rng, StopToken stop,
                         Visit&& visit) const {
    const int n = lattice.num_sites();
    std::uint64_t changed = 0;
    if (order_ == SiteOrder::random) {
      for (std::size_t k = 0; k < steps_; ++k) {
        changed += visit(static_cast<int>(rng.below(static_cast<std::uint32_t>(n))));
        // A stop request (Ctrl-C) is seen within 2^20 updates, however many steps one call makes.
        if ((k & 0xFFFFF) == 0xFFFFF) stop.throw_if_requested();
      }
      return {steps_, changed};
    }
    // A sweep visits colour 0 then colour 1 in increasing site order; the
    // reversed kernel visits the same sites in exactly the opposite order.
    for (std::size_t sweep = 0; sweep < steps_; ++sweep) {
      if (sweep > 0) stop.throw_if_requested();
      for (int half = 0; half < 2; ++half) {
        const auto& sites = lattice.sites_of_colour(reversed_ ? 1 - half : half);
        const std::size_t m = sites.size();
        for (std::size_t j = 0; j < m; ++j) changed += visit(sites[reversed_ ? m - 1 - j : j]);
      }
    }
    return {steps_ * static_cast<std::uint64_t>(n), changed};
  }

  SiteOrder order_;
  std::size_t steps_;
  bool reversed_;
};

}  // namespace logz
