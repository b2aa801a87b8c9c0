#include "logz/kernels/spin_flip_metropolis.hpp"

namespace logz {

namespace {

// One Metropolis update of site i with 32 random bits. On acceptance flips the
// spin, adds the change of the bond sum (-2 s_i h) to delta and returns true.
inline bool update_site(const IsingTarget& t, std::int8_t* s, int i, std::uint32_t bits,
                        std::int64_t& delta) {
  const auto& nb = t.lattice->neighbours(i);
  // A neighbour slot that is the site itself (1-wide torus) is a constant self-bond.
  const int s_h = s[i] * ((nb[0] != i) * s[nb[0]] + (nb[1] != i) * s[nb[1]] +
                          (nb[2] != i) * s[nb[2]] + (nb[3] != i) * s[nb[3]]);
  // Branch-free: acceptances are unpredictable, so select instead of jumping.
  const bool accept = bits < t.accept_threshold[(s_h + 4) >> 1];
  const int sign = 1 - 2 * static_cast<int>(accept);
  s[i] = static_cast<std::int8_t>(sign * s[i]);
  delta -= 2 * s_h * static_cast<int>(accept);
  return accept;
}

}  // namespace

KernelInfo SpinFlipMetropolis::step(const IsingTarget& target, SpinBatch& batch,
                                    const BatchRandom& random, StopToken stop) const {
  return update_sites(*target.lattice, batch, random, stop,
                      [&](std::int8_t* s, int i, RandomStream& rng, std::int64_t& delta) {
                        return update_site(target, s, i, rng.next_u32(), delta);
                      });
}

}  // namespace logz
