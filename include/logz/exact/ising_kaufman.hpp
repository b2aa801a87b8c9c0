// Exact log Z and mean energy of the 2D Ising model on an R x C torus (periodic in both
// directions) from Kaufman's finite-lattice formula (B. Kaufman, Phys. Rev. 76, 1232 (1949);
// see also P. D. Beale, PRL 76, 78 (1996)), evaluated entirely in log space with the signed
// gamma_0 (negative above T_c), so lattices of any size (e.g. 1024 x 1024) and any beta >= 0 work.
// Convention (same as ising_enumeration.hpp): spins s_i = +-1, site i = r*C + c,
// E(s) = -J sum_i (s_i s_right(i) + s_i s_down(i)) over exactly 2*R*C bonds (for R or C = 2 both
// bonds of a pair count; for R or C = 1 the self-bond contributes -J), Z = sum_s exp(-beta E(s)),
// and log Z includes everything (log Z = R*C*log 2 at beta = 0).
#pragma once

namespace logz::exact {

// log Z of the R x C torus by Kaufman's formula. rows, cols >= 1, beta >= 0 finite, J finite.
// J < 0 (antiferromagnet) is accepted only when rows and cols are both even (then Z(-J) = Z(J))
// or one of them is 1 (closed-form ring); an antiferromagnet with an odd side > 1 is frustrated,
// Kaufman's signed sum then cancels catastrophically at low temperature, and InvalidArgument is
// thrown. Accuracy: a few ulps of log Z (checked to 1e-15 relative against enumeration).
double ising_log_z_kaufman(int rows, int cols, double beta, double coupling = 1.0);

// Mean energy <E> = -d log Z / d beta, by the analytic derivative of the same formula (no
// finite differences), same argument contract. Absolute accuracy about 1e-14 per site; since
// <E> -> 0 as beta -> 0 (for rows, cols >= 2), its relative accuracy is about 1e-14 / beta in the
// range 1e-150 < |J| beta < 1e-4 (below 1e-150 the exact first-order expansion is used).
double ising_mean_energy_kaufman(int rows, int cols, double beta, double coupling = 1.0);

}  // namespace logz::exact
