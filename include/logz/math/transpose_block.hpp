// A block of a row-major array written column-major (MBAR's u_kn, stored state by state, read a
// block of samples at a time as the solver's K x B columns).
#pragma once

#include <algorithm>
#include <cstddef>

namespace logz {

// out(k, j) = in[k * in_stride + j] for k < rows, j < cols; out is rows x cols column-major.
// A few rows at a time: few enough streams for the prefetchers to follow (Eigen's strided
// assignment of the same block ran about a third slower).
inline void transpose_block(const double* in, std::size_t in_stride, std::size_t rows,
                            std::size_t cols, double* out) {
  constexpr std::size_t kRows = 16;
  for (std::size_t k0 = 0; k0 < rows; k0 += kRows) {
    const std::size_t k1 = std::min(rows, k0 + kRows);
    for (std::size_t j = 0; j < cols; ++j)
      for (std::size_t k = k0; k < k1; ++k) out[j * rows + k] = in[k * in_stride + j];
  }
}

}  // namespace logz
