#include "logz/kernels/wolff.hpp"

#include <cstdint>
#include <vector>

#include "cluster_bonds.hpp"
#include "logz/core/stop_request.hpp"

namespace logz {

namespace {

// Grows and recolours `clusters` clusters of one particle's sites x; new_value(old, rng) draws
// a cluster's new value. Sites take the new value as they join, so a neighbour still holding the
// old value is exactly one outside the cluster, and each bond is tested at most once. Returns
// the number of sites the clusters visited. Checks `stop` every 2^16 clusters.
template <class Site, class NewValue>
std::uint64_t grow_clusters(const TorusLattice& lattice, std::uint64_t threshold,
                            std::size_t clusters, Site* x, RandomStream& rng,
                            const NewValue& new_value, StopToken stop) {
  thread_local std::vector<std::int32_t> stack;
  const auto n = static_cast<std::uint32_t>(lattice.num_sites());
  std::uint64_t visited = 0;
  for (std::size_t c = 0; c < clusters; ++c) {
    if ((c & 0xFFFF) == 0xFFFF) stop.throw_if_requested();
    const auto seed = static_cast<std::int32_t>(rng.below(n));
    const Site old = x[seed], fresh = new_value(old, rng);
    x[seed] = fresh;
    stack.assign(1, seed);
    while (!stack.empty()) {
      const std::int32_t i = stack.back();
      stack.pop_back();
      ++visited;
      for (std::int32_t j : lattice.neighbours(i)) {
        if (x[j] != old || rng.next_u32() >= threshold) continue;
        x[j] = fresh;
        stack.push_back(j);
      }
    }
  }
  return visited;
}

template <class Site, class NewValue>
KernelInfo grow_batch(const TorusLattice& lattice, double k_bond, std::size_t clusters,
                      LatticeBatch<Site>& batch, const BatchRandom& random,
                      const NewValue& new_value, bool spins, StopToken stop) {
  const std::uint64_t threshold = cluster_bonds::open_threshold(k_bond, "wolff");
  KernelInfo info;
  for (std::size_t p = 0; p < batch.num_particles(); ++p) {
    RandomStream rng = random.stream(p);
    info.attempted +=
        grow_clusters(lattice, threshold, clusters, batch.sites(p), rng, new_value, stop);
    batch.bond_sum(p) = cluster_bonds::bond_sum(lattice, batch.sites(p), spins);
  }
  info.accepted = info.attempted;  // every site a cluster visits changes value
  return info;
}

}  // namespace

KernelInfo Wolff::step(const IsingTarget& target, SpinBatch& batch, const BatchRandom& random,
                       StopToken stop) const {
  auto flip = [](std::int8_t s, RandomStream&) { return static_cast<std::int8_t>(-s); };
  return grow_batch(*target.lattice, 2.0 * target.beta_coupling, clusters_, batch, random, flip,
                    true, stop);
}

KernelInfo Wolff::step(const PottsTarget& target, PottsBatch& batch, const BatchRandom& random,
                       StopToken stop) const {
  const auto others = static_cast<std::uint32_t>(target.num_colours - 1);
  // Uniform over the q - 1 other colours: draw among q - 1 and skip the old one.
  auto other_colour = [others](std::uint8_t old, RandomStream& rng) {
    const auto c = rng.below(others);
    return static_cast<std::uint8_t>(c + (c >= old));
  };
  return grow_batch(*target.lattice, target.beta_coupling, clusters_, batch, random, other_colour,
                    false, stop);
}

}  // namespace logz
