// Brute-force exact oracle for the 2D Ising model on an R x C torus: enumerates all 2^(R*C)
// spin configurations (R*C <= 30) and sums exp(-beta E) in log space (log-sum-exp over the
// exact integer histogram of unsatisfied bonds), independently of any closed-form formula; any
// sign of J (frustrated lattices included). Cost ~2^(R*C) steps: 5 x 5 in ~0.1 s, 30 sites in
// a few seconds, per call.
// Convention: E(s) = -J sum_i (s_i s_right(i) + s_i s_down(i)), site i = r*C + c,
// right(r,c) = (r, (c+1) mod C), down(r,c) = ((r+1) mod R, c); exactly 2*R*C bonds, each
// counted once (for R or C = 2 both bonds between a pair count; for R or C = 1 the self-bond
// s_i*s_i = 1 contributes -J).
#pragma once

namespace logz::exact {

// Largest number of sites (R*C) the enumeration accepts.
inline constexpr int kIsingEnumerationMaxSites = 30;

// log Z(beta) by enumeration; rows, cols >= 1, rows*cols <= 30, beta >= 0 finite, J finite.
double ising_log_z_enumeration(int rows, int cols, double beta, double coupling = 1.0);

// Mean energy <E> at beta by the same enumeration (same argument contract).
double ising_mean_energy_enumeration(int rows, int cols, double beta, double coupling = 1.0);

}  // namespace logz::exact
