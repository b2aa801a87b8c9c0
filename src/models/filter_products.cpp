// The padded products of a product of experts (filter_products.hpp), vectorised with Highway
// and dispatched at run time. Compiled once per Highway target.
#include <cmath>
#include <cstddef>

#include "hwy_dispatch.hpp"  // before Highway: the targets it dispatches to
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "models/filter_products.cpp"
// clang-format off
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
// clang-format on

#include "models/filter_products.hpp"

HWY_BEFORE_NAMESPACE();
namespace logz::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Row vectors per tile: the tile's MR x NR accumulators, MR loads of A and a broadcast of B
// must fit the registers (32 with AVX-512, 16 with AVX2 and SSE4).
#if HWY_TARGET <= HWY_AVX3
constexpr int kMaxRowVectors = 6;
#else
constexpr int kMaxRowVectors = 3;
#endif
constexpr int kColumns = 4;

// C[rows r0 .. r0 + MR N, columns j0 .. j0 + NR) = A B over those rows and columns.
template <int MR, int NR, class D, class T>
HWY_INLINE void Tile(D d, const T* HWY_RESTRICT A, std::size_t R, std::size_t K,
                     const T* HWY_RESTRICT B, std::size_t ldb, T* HWY_RESTRICT C, std::size_t r0,
                     std::size_t j0) {
  const std::size_t N = hn::Lanes(d);
  // The small loops unrolled whatever the optimisation level, so the tile stays in registers.
  hn::Vec<D> acc[MR][NR];
  // HWY_UNROLL(8) stands before each loop it unrolls, which clang-format cannot lay out.
  // clang-format off
  HWY_UNROLL(8) for (int i = 0; i < MR; ++i)
    HWY_UNROLL(8) for (int j = 0; j < NR; ++j) acc[i][j] = hn::Zero(d);
  for (std::size_t k = 0; k < K; ++k) {
    hn::Vec<D> a[MR];
    HWY_UNROLL(8) for (int i = 0; i < MR; ++i)
      a[i] = hn::LoadU(d, A + k * R + r0 + static_cast<std::size_t>(i) * N);
    HWY_UNROLL(8) for (int j = 0; j < NR; ++j) {
      const auto b = hn::Set(d, B[(j0 + static_cast<std::size_t>(j)) * ldb + k]);
      HWY_UNROLL(8) for (int i = 0; i < MR; ++i) acc[i][j] = hn::MulAdd(a[i], b, acc[i][j]);
    }
  }
  HWY_UNROLL(8) for (int j = 0; j < NR; ++j)
    HWY_UNROLL(8) for (int i = 0; i < MR; ++i)
      hn::StoreU(acc[i][j], d,
                 C + (j0 + static_cast<std::size_t>(j)) * R + r0 + static_cast<std::size_t>(i) * N);
  // clang-format on
}

// All columns for the row vectors r0 .. r0 + MR N.
template <int MR, class D, class T>
HWY_INLINE void RowBand(D d, const T* A, std::size_t R, std::size_t K, const T* B, std::size_t ldb,
                        std::size_t P, T* C, std::size_t r0) {
  std::size_t j = 0;
  for (; j + kColumns <= P; j += kColumns) Tile<MR, kColumns>(d, A, R, K, B, ldb, C, r0, j);
  for (; j < P; ++j) Tile<MR, 1>(d, A, R, K, B, ldb, C, r0, j);
}

template <class T>
void Product(const T* A, std::size_t R, std::size_t K, const T* B, std::size_t ldb, std::size_t P,
             T* C) {
  const hn::ScalableTag<T> d;
  const std::size_t N = hn::Lanes(d);
  if (R % N != 0) {  // vectors longer than the padding (not on x86): plain loops, same sums
    for (std::size_t j = 0; j < P; ++j)
      for (std::size_t r = 0; r < R; ++r) {
        T s = 0;
        for (std::size_t k = 0; k < K; ++k) s = std::fma(A[k * R + r], B[j * ldb + k], s);
        C[j * R + r] = s;
      }
    return;
  }
  std::size_t r0 = 0, vectors = R / N;
  for (; vectors >= static_cast<std::size_t>(kMaxRowVectors);
       vectors -= kMaxRowVectors, r0 += kMaxRowVectors * N)
    RowBand<kMaxRowVectors>(d, A, R, K, B, ldb, P, C, r0);
  switch (vectors) {  // the last band: one instance per width
    case 5:
      if constexpr (kMaxRowVectors > 5) RowBand<5>(d, A, R, K, B, ldb, P, C, r0);
      break;
    case 4:
      if constexpr (kMaxRowVectors > 4) RowBand<4>(d, A, R, K, B, ldb, P, C, r0);
      break;
    case 3:
      if constexpr (kMaxRowVectors > 3) RowBand<3>(d, A, R, K, B, ldb, P, C, r0);
      break;
    case 2:
      RowBand<2>(d, A, R, K, B, ldb, P, C, r0);
      break;
    case 1:
      RowBand<1>(d, A, R, K, B, ldb, P, C, r0);
      break;
    default:
      break;
  }
}

void ProductD(const double* A, std::size_t R, std::size_t K, const double* B, std::size_t ldb,
              std::size_t P, double* C) {
  Product(A, R, K, B, ldb, P, C);
}
void ProductF(const float* A, std::size_t R, std::size_t K, const float* B, std::size_t ldb,
              std::size_t P, float* C) {
  Product(A, R, K, B, ldb, P, C);
}

}  // namespace logz::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace logz::detail {

HWY_EXPORT(ProductD);
HWY_EXPORT(ProductF);

void padded_product(const double* A, std::size_t R, std::size_t K, const double* B, std::size_t ldb,
                    std::size_t P, double* C) {
  HWY_DYNAMIC_DISPATCH(ProductD)(A, R, K, B, ldb, P, C);
}
void padded_product(const float* A, std::size_t R, std::size_t K, const float* B, std::size_t ldb,
                    std::size_t P, float* C) {
  HWY_DYNAMIC_DISPATCH(ProductF)(A, R, K, B, ldb, P, C);
}

}  // namespace logz::detail
#endif
