#include "logz/kernels/potts_metropolis.hpp"

#include <cstdint>

namespace logz {

PottsMetropolis::PottsMetropolis(SiteOrder order, std::size_t steps, bool reversed)
    : order_(order), steps_(steps), reversed_(reversed) {}

namespace {

// One Metropolis update of site i: proposes colour `proposal` (0..q-2, mapped
// past the current colour), accepts with 32 random bits. On acceptance
// changes the colour, adds the change of the equal-bond count to delta and
// returns true.
inline bool update_site(const PottsTarget& t, std::uint8_t* x, int i, std::uint32_t proposal,
                        std::uint32_t bits, std::int64_t& delta) {
  const auto& nb = t.lattice->neighbours(i);
  const int old_colour = x[i];
  const int new_colour = static_cast<int>(proposal) + (static_cast<int>(proposal) >= old_colour);
  int d = 0;
  for (int s = 0; s < 4; ++s) {
    const int j = nb[s];
    // A self-bond (1-wide torus) is equal before and after: it must not count.
    const int not_self = j != i;
    d += not_self * ((x[j] == new_colour) - (x[j] == old_colour));
  }
  // Branch-free: acceptances are unpredictable, so select instead of jumping.
  const bool accept = bits < t.accept_threshold[d + 4];
  x[i] = static_cast<std::uint8_t>(accept ? new_colour : old_colour);
  delta += d * static_cast<int>(accept);
  return accept;
}

}  // namespace

KernelInfo PottsMetropolis::step(const PottsTarget& target, PottsBatch& batch,
                                 const BatchRandom& random) const {
  KernelInfo info;
  const int n = batch.num_sites();
  const auto others = static_cast<std::uint32_t>(target.num_colours - 1);
  const TorusLattice& lattice = *target.lattice;
  for (std::size_t p = 0; p < batch.num_particles(); ++p) {
    RandomStream rng = random.stream(p);
    std::uint8_t* x = batch.colours(p);
    std::int64_t delta = 0;
    std::uint64_t accepted = 0;
    if (order_ == SiteOrder::random) {
      for (std::size_t k = 0; k < steps_; ++k) {
        const int i = static_cast<int>(rng.below(static_cast<std::uint32_t>(n)));
        const std::uint32_t proposal = rng.below(others);
        accepted += update_site(target, x, i, proposal, rng.next_u32(), delta);
      }
      info.attempted += steps_;
    } else {
      // A sweep visits colour 0 then colour 1 in increasing site order; the
      // reversed kernel visits the same sites in exactly the opposite order.
      for (std::size_t sweep = 0; sweep < steps_; ++sweep)
        for (int half = 0; half < 2; ++half) {
          const auto& sites = lattice.sites_of_colour(reversed_ ? 1 - half : half);
          const std::size_t m = sites.size();
          for (std::size_t j = 0; j < m; ++j) {
            const int i = sites[reversed_ ? m - 1 - j : j];
            const std::uint32_t proposal = rng.below(others);
            accepted += update_site(target, x, i, proposal, rng.next_u32(), delta);
          }
        }
      info.attempted += steps_ * static_cast<std::uint64_t>(n);
    }
    batch.equal_bonds(p) += delta;
    info.accepted += accepted;
  }
  return info;
}

}  // namespace logz
