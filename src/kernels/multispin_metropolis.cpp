#include "logz/kernels/multispin_metropolis.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/core/stop_request.hpp"
#include "multispin_bits.hpp"

namespace logz {

namespace {

using namespace multispin;

// The acceptance of a flip as lane masks. With K = beta J >= 0 the flips that may be rejected
// are those of sites with no anti-aligned neighbour ("hard": Delta E = 8K) and with one ("soft":
// 4K); with K < 0, those with no or one aligned neighbour, which counting the complement
// (invert) turns into the same two classes. accept_threshold is indexed by (s_i h + 4) / 2 with
// s_i h = 4 - 2 * (anti-aligned neighbours).
struct FlipAcceptance {
  Word invert;
  Threshold hard, soft;

  explicit FlipAcceptance(const IsingTarget& t)
      : invert(t.beta_coupling < 0 ? kAll : 0),
        hard(t.beta_coupling < 0 ? t.accept_threshold[0] : t.accept_threshold[4]),
        soft(t.beta_coupling < 0 ? t.accept_threshold[1] : t.accept_threshold[3]) {}
};

// One site of 64 lanes: returns the lanes that flip. u[k] has a lane's bit set where neighbour
// k is anti-aligned (a self-neighbour of a 1-wide torus counts aligned in one slot and
// anti-aligned in the other: no contribution, as its bond is constant).
inline Word accepted_flips(const FlipAcceptance& a, Word u0, Word u1, Word u2, Word u3,
                           RandomWords& random) {
  const Word v0 = u0 ^ a.invert, v1 = u1 ^ a.invert, v2 = u2 ^ a.invert, v3 = u3 ^ a.invert;
  const Word x01 = v0 ^ v1, x23 = v2 ^ v3;
  const Word two_or_more = (v0 & v1) | (v2 & v3) | (x01 & x23);
  const Word hard = ~(v0 | v1 | v2 | v3) & a.hard.active;
  const Word soft = (x01 ^ x23) & ~two_or_more & a.soft.active;
  return ~(hard | soft) | below_thresholds<2>({hard, soft}, {&a.hard, &a.soft}, random);
}

// Per lane, the bond sum sum over bonds of s_i s_j = bonds - 2 * (anti-aligned bonds).
void recount_bond_sums(const TorusLattice& lattice, const Word* w, PackedSpinBatch& batch,
                       std::size_t first) {
  LaneCounter anti;
  for (int i = 0; i < lattice.num_sites(); ++i) {
    const auto& nb = lattice.neighbours(i);
    anti.add(w[i] ^ w[nb[0]]);
    anti.add(w[i] ^ w[nb[1]]);
  }
  const std::size_t lanes = std::min(PackedSpinBatch::kLanes, batch.num_particles() - first);
  for (std::size_t l = 0; l < lanes; ++l)
    batch.bond_sum(first + l) = lattice.num_bonds() - 2 * anti.count(l);
}

}  // namespace

MultiSpinMetropolis::MultiSpinMetropolis(SiteOrder order, std::size_t sweeps, bool reversed)
    : SiteKernel(order, sweeps, reversed) {
  if (order != SiteOrder::checkerboard)
    fail_argument("logz::MultiSpinMetropolis", "order",
                  "checkerboard (multi-spin sweeps visit sites in order)");
}

KernelInfo MultiSpinMetropolis::step(const IsingTarget& target, PackedSpinBatch& batch,
                                     const BatchRandom& random, StopToken stop) const {
  const TorusLattice& lattice = *target.lattice;
  const FlipAcceptance acceptance(target);
  // On a 1-wide torus the left (or up) slot is the site itself: count it anti-aligned, the
  // right (or down) one aligned.
  const Word self_left = lattice.cols() == 1 ? kAll : 0, self_up = lattice.rows() == 1 ? kAll : 0;
  return sweep_groups(
      lattice, batch, random, steps(), is_reversed(), stop,
      [&](Word* w, const Visit& v, RandomWords& words) {
        const Word s = w[v.site];
        const Word flip =
            accepted_flips(acceptance, s ^ w[v.nb[0]], s ^ w[v.nb[1]], s ^ w[v.nb[2]] ^ self_left,
                           s ^ w[v.nb[3]] ^ self_up, words);
        w[v.site] = s ^ flip;
        return flip;
      },
      [&](const Word* w, std::size_t first) { recount_bond_sums(lattice, w, batch, first); });
}

}  // namespace logz
