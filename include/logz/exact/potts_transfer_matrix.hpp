// Exact log Z and mean energy of the q-state Potts model on an R x C torus by a
// column transfer matrix: with R the smaller side, Z = Tr (D H)^C over the q^R
// colourings of a column, D = diag(exp(K v(a))) holding the column's R vertical
// bonds and H = h (x) ... (x) h (R factors, h = (e^K - 1) I + 1 1^T) the R
// horizontal bonds to the next column, K = beta J. By the colour-permutation
// symmetry the diagonal (T^C)_{aa} depends only on which rows of a share a
// colour, so Z = sum over set partitions pi of the R rows (at most q blocks) of
// q!/(q - |pi|)! (T^C)_{a_pi a_pi}: one vector propagated C times per partition
// (15 for R = 4), each step O(R q^R), with every term positive (no cancellation)
// and rescaled each step (log space). <E> = -J d log Z / dK is propagated
// exactly alongside (forward-mode derivative), no finite differences.
// Convention (as potts_enumeration.hpp, with code of its own): E(x) = -J sum over
// the 2RC right and down bonds of delta(x_i, x_j), both bonds of a pair on a
// 2-wide torus counting, a self-bond on a 1-wide one always equal; log Z
// includes everything (R C log q at beta = 0). Accuracy ~1e-14 relative.
#pragma once

namespace logz::exact {

// Limits: q^R <= 2^17 column states and (number of usable partitions) * q^R <= 2^22,
// R = min(rows, cols); so R <= 4 for q = 10 (any C), R <= 2 for q = 255.
inline constexpr double kPottsTransferMaxStates = 131072.0;
inline constexpr double kPottsTransferMaxWork = 4194304.0;

// True when the transfer matrix accepts this lattice (the limits above).
bool potts_transfer_matrix_feasible(int rows, int cols, int q);

// About how many multiply-adds one log Z evaluation costs (+inf when not feasible):
// partitions * q^R * (R + 1) * max(rows, cols).
double potts_transfer_matrix_cost(int rows, int cols, int q);

// log Z of the R x C torus. rows, cols >= 1; q in 2..255; feasible; beta >= 0 finite;
// J finite; |beta J| * 2 min(rows, cols) <= 600 (keeps every rescaled entry above 1e-260).
double potts_log_z_transfer_matrix(int rows, int cols, int q, double beta, double coupling);

// Mean energy <E> at beta, exactly (same contract).
double potts_mean_energy_transfer_matrix(int rows, int cols, int q, double beta, double coupling);

}  // namespace logz::exact
