// Brute-force exact oracle for the q-state Potts model on an R x C torus: counts
// the configurations by their number n of equal-colour bonds (the density of
// states, independent of beta and J) and sums exp(beta J n) in log space. Site 0
// is fixed to colour 0 and the counts multiplied by q (the energy is invariant
// under relabelling colours), so q^(N-1) configurations are visited: 3 x 3 with
// q = 10 (1e8) in about a second, 2 x 4 with q = 10 (1e7) in 0.1 s.
// Convention (as models/potts.hpp, with code of its own): colours 0..q-1, site
// i = r*C + c, E(x) = -J sum_i [delta(x_i, x_right(i)) + delta(x_i, x_down(i))]
// over exactly 2*R*C bonds (for R or C = 2 both bonds of a pair count; for R or
// C = 1 the self-bond is always equal and contributes -J); Z = sum_x exp(-beta E(x)),
// so log Z = R*C*log q at beta = 0.
#pragma once

#include <cstdint>
#include <vector>

namespace logz::exact {

// Largest number of configurations visited, q^(R*C - 1).
inline constexpr double kPottsEnumerationMaxStates = 2e8;

// counts[n] = number of configurations with exactly n equal-colour bonds,
// n = 0..2RC. rows, cols >= 1; q in 2..255; q^(R*C-1) <= kPottsEnumerationMaxStates.
std::vector<std::uint64_t> potts_equal_bond_counts(int rows, int cols, int q);

// log Z(beta) by enumeration; same contract, plus beta >= 0 finite and J finite.
double potts_log_z_enumeration(int rows, int cols, int q, double beta, double coupling);

// Mean energy <E> at beta by the same enumeration (same contract).
double potts_mean_energy_enumeration(int rows, int cols, int q, double beta, double coupling);

}  // namespace logz::exact
