#include "logz/kernels/potts_metropolis.hpp"

#include <cstdint>

namespace logz {

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
                                 const BatchRandom& random, StopToken stop) const {
  const auto others = static_cast<std::uint32_t>(target.num_colours - 1);
  return update_sites(
      *target.lattice, batch, random, stop,
      [&target, others](std::uint8_t* x, int i, RandomStream& rng, std::int64_t& delta) {
        const std::uint32_t proposal = rng.below(others);
        return update_site(target, x, i, proposal, rng.next_u32(), delta);
      });
}

}  // namespace logz
