// Internal to products of experts (not installed): the small dense products of a batch,
// C = A B, with A (R x K, column-major) the filters or their transpose padded with zero rows
// to a multiple of 16, B (K x P, column-major, leading dimension ldb) a batch's positions or
// expert derivatives, C (R x P, column-major, leading dimension R). A is used as stored, never
// packed again, and the tiles of C stay in registers: the products of a 36 x 36 filter matrix
// with a chunk of particles run near the machine's FMA rate. Vectorised with Highway and
// dispatched at run time. Each entry of C is one chain of fused multiply-adds over k = 0, 1,
// ..., K - 1, whatever P or the column's place: a particle's numbers do not depend on its chunk.
#pragma once

#include <cstddef>

namespace logz::detail {

void padded_product(const double* A, std::size_t R, std::size_t K, const double* B, std::size_t ldb,
                    std::size_t P, double* C);
void padded_product(const float* A, std::size_t R, std::size_t K, const float* B, std::size_t ldb,
                    std::size_t P, float* C);

}  // namespace logz::detail
