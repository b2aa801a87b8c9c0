// What the cluster kernels (SwendsenWang, Wolff) share: the probability of opening a bond between
// equal sites as a 32-bit threshold, the refusal of antiferromagnetic targets, and the bond sum
// of a particle recounted from its sites (equal bonds for Potts, +-1 products for Ising).
#pragma once

#include <cmath>
#include <cstdint>
#include <string_view>

#include "logz/core/error.hpp"
#include "logz/models/torus_lattice.hpp"

namespace logz::cluster_bonds {

// p = 1 - exp(-k_bond) as a fraction of 2^32, compared with a 32-bit draw. k_bond = 2 beta J
// (Ising: a satisfied bond weighs e^{K}, a broken one e^{-K}) or beta J (Potts).
inline std::uint64_t open_threshold(double k_bond, std::string_view kernel) {
  if (!(k_bond >= 0.0)) fail_argument(kernel, "coupling", "beta * coupling >= 0 (ferromagnetic)");
  const double p = -std::expm1(-k_bond);
  return p >= 1.0 ? (std::uint64_t{1} << 32) : static_cast<std::uint64_t>(std::ldexp(p, 32));
}

// The bond sum of sites x: Ising (spins) sum of s_i s_j, Potts the number of equal bonds.
template <class Site>
std::int64_t bond_sum(const TorusLattice& lattice, const Site* x, bool spins) {
  std::int64_t equal = 0;
  for (int i = 0; i < lattice.num_sites(); ++i) {
    const auto& nb = lattice.neighbours(i);
    equal += (x[i] == x[nb[0]]) + (x[i] == x[nb[1]]);
  }
  // Ising: equal bonds count +1, the others -1.
  return spins ? 2 * equal - lattice.num_bonds() : equal;
}

}  // namespace logz::cluster_bonds
