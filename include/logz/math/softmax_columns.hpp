// The normalised exponentials (softmax) of the columns of bias - u, for u a rows x cols block of
// reduced energies: L_j = log sum_k exp(bias_k - u_kj), shifted by the column's maximum so that
// energies of any size neither overflow nor underflow, and p_kj = exp(bias_k - u_kj - L_j). This
// is MBAR's inner loop (bias = log N_k + f_k gives L_j = log D_j and p_kj = N_k W_jk); a bias of
// -inf gives p = 0 and leaves L alone. One exp per entry, vectorised with Highway's exp and log
// and dispatched at run time to the processor's instruction set (the last bits may differ between
// instruction sets, never between runs on one machine).
#pragma once

#include <cstddef>
#include <span>

namespace logz {

// u column-major with leading dimension ld_u >= rows (rows = bias.size()); p (leading dimension
// ld_p >= rows) gets rows x cols values, log_norm cols values. The bias must not be +inf or NaN,
// and every column needs one finite bias_k - u_kj.
void softmax_columns(std::span<const double> bias, const double* u, std::size_t ld_u,
                     std::size_t cols, double* p, std::size_t ld_p, double* log_norm);

// The same for energies linear in the row, u_kj = levels_k * energies_j (simulated tempering's
// levels), never formed: cols = energies.size(), levels.size() = bias.size().
void softmax_columns_linear(std::span<const double> bias, std::span<const double> levels,
                            std::span<const double> energies, double* p, std::size_t ld_p,
                            double* log_norm);

}  // namespace logz
