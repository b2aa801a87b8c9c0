#include "logz/kernels/spin_flip_metropolis.hpp"

namespace logz {

SpinFlipMetropolis::SpinFlipMetropolis(SiteOrder order, std::size_t steps, bool reversed)
    : order_(order), steps_(steps), reversed_(reversed) {}

namespace {

// One Metropolis update of site i with 32 random bits. On acceptance flips the
// spin, adds the change of the bond sum (-2 s_i h) to delta and returns true.
inline bool update_site(const IsingTarget& t, std::int8_t* s, int i, std::uint32_t bits,
                        std::int64_t& delta) {
  const auto& nb = t.lattice->neighbours(i);
  // A neighbour slot that is the site itself (1-wide torus) is a constant self-bond.
  const int s_h = s[i] * ((nb[0] != i) * s[nb[0]] + (nb[1] != i) * s[nb[1]] + (nb[2] != i) * s[nb[2]] +
                          (nb[3] != i) * s[nb[3]]);
  // Branch-free: acceptances are unpredictable, so select instead of jumping.
  const bool accept = bits < t.accept_threshold[(s_h + 4) >> 1];
  const int sign = 1 - 2 * static_cast<int>(accept);
  s[i] = static_cast<std::int8_t>(sign * s[i]);
  delta -= 2 * s_h * static_cast<int>(accept);
  return accept;
}

}  // namespace

KernelInfo SpinFlipMetropolis::step(const IsingTarget& target, SpinBatch& batch,
                                    const BatchRandom& random) const {
  KernelInfo info;
  const int n = batch.num_sites();
  const TorusLattice& lattice = *target.lattice;
  for (std::size_t p = 0; p < batch.num_particles(); ++p) {
    RandomStream rng = random.stream(p);
    std::int8_t* s = batch.spins(p);
    std::int64_t delta = 0;
    std::uint64_t accepted = 0;
    if (order_ == SiteOrder::random) {
      for (std::size_t k = 0; k < steps_; ++k) {
        const int i = static_cast<int>(rng.below(static_cast<std::uint32_t>(n)));
        accepted += update_site(target, s, i, rng.next_u32(), delta);
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
            accepted += update_site(target, s, i, rng.next_u32(), delta);
          }
        }
      info.attempted += steps_ * static_cast<std::uint64_t>(n);
    }
    batch.bond_sum(p) += delta;
    info.accepted += accepted;
  }
  return info;
}

}  // namespace logz
