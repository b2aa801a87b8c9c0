// Column softmax of bias - u (softmax_columns.hpp), vectorised with Highway's exp and log and
// dispatched at run time to the best instruction set the processor has.
// Compiled once per Highway target (foreach_target re-includes this file).
#include <algorithm>
#include <cstddef>
#include <limits>

#include "hwy_dispatch.hpp"  // before Highway: the targets it dispatches to
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "math/softmax_columns.cpp"
// foreach_target.h first: it re-includes this file once per target.
// clang-format off
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/aligned_allocator.h>
#include <hwy/highway.h>
#include <hwy/contrib/math/math-inl.h>
// clang-format on

#include "logz/core/error.hpp"
#include "logz/math/softmax_columns.hpp"

HWY_BEFORE_NAMESPACE();
namespace logz::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

constexpr std::size_t kMaxLanes = HWY_MAX_BYTES / sizeof(double);
constexpr std::size_t kGroup =
    64;  // columns whose logarithms are taken together, a vector at a time

// The rows padded to whole vectors: bias -inf (so exp gives 0) and level 0 past the last row.
struct Padded {
  std::size_t rows, padded;
  hwy::AlignedFreeUniquePtr<double[]> bias, levels, work;
  template <class D>
  Padded(D d, const double* b, const double* l, std::size_t n) : rows(n) {
    const std::size_t lanes = hn::Lanes(d);
    padded = (n + lanes - 1) / lanes * lanes;
    bias = hwy::AllocateAligned<double>(padded);
    levels = hwy::AllocateAligned<double>(padded);
    work = hwy::AllocateAligned<double>(padded);
    for (std::size_t k = 0; k < padded; ++k) {
      bias[k] = k < n ? b[k] : -std::numeric_limits<double>::infinity();
      levels[k] = k < n && l ? l[k] : 0.0;
    }
  }
};

// One column: x(k) = bias_k - u_kj a vector at a time over the padded rows; p = exp(x - max) / sum,
// max and sum kept for the column's log-normaliser.
template <class D, class XOf>
HWY_INLINE void Column(D d, Padded& pad, const XOf& x_of, double* p, double& max_out,
                       double& sum_out) {
  using V = hn::Vec<D>;
  const std::size_t lanes = hn::Lanes(d);
  double* work = pad.work.get();
  V vmax = hn::Set(d, -std::numeric_limits<double>::infinity());
  for (std::size_t k = 0; k < pad.padded; k += lanes) {
    const V x = x_of(k);
    hn::Store(x, d, work + k);
    vmax = hn::Max(vmax, x);
  }
  // Shifted by the maximum, every term is exp(<= 0) and the largest is exactly 1.
  const V m = hn::MaxOfLanes(d, vmax);
  V sum = hn::Zero(d);
  for (std::size_t k = 0; k < pad.padded; k += lanes) {
    const V e = hn::Exp(d, hn::Sub(hn::Load(d, work + k), m));
    hn::Store(e, d, work + k);
    sum = hn::Add(sum, e);
  }
  const V s = hn::SumOfLanes(d, sum);
  const V inverse = hn::Div(hn::Set(d, 1.0), s);
  std::size_t k = 0;
  for (; k + lanes <= pad.rows; k += lanes)
    hn::StoreU(hn::Mul(hn::Load(d, work + k), inverse), d, p + k);
  if (k < pad.rows) {
    hn::Store(hn::Mul(hn::Load(d, work + k), inverse), d, work + k);
    std::copy(work + k, work + pad.rows, p + k);
  }
  max_out = hn::GetLane(m);
  sum_out = hn::GetLane(s);
}

// Columns 0..cols-1 through column(j, max, sum); log_norm_j = max + log(sum), kGroup at a time.
template <class D, class ColumnOf>
HWY_INLINE void Columns(D d, std::size_t cols, const ColumnOf& column, double* log_norm) {
  const std::size_t lanes = hn::Lanes(d);
  HWY_ALIGN double maxima[kGroup], sums[kGroup];
  for (std::size_t first = 0; first < cols; first += kGroup) {
    const std::size_t count = std::min(kGroup, cols - first);
    for (std::size_t j = 0; j < kGroup; ++j) {
      if (j < count) {
        column(first + j, maxima[j], sums[j]);
      } else {
        maxima[j] = 0.0, sums[j] = 1.0;
      }
    }
    for (std::size_t j = 0; j < kGroup; j += lanes) {
      hn::Store(hn::Add(hn::Load(d, maxima + j), hn::Log(d, hn::Load(d, sums + j))), d, maxima + j);
    }
    std::copy(maxima, maxima + count, log_norm + first);
  }
}

void SoftmaxColumnsDense(const double* bias, std::size_t rows, const double* u, std::size_t ld_u,
                         std::size_t cols, double* p, std::size_t ld_p, double* log_norm) {
  const hn::ScalableTag<double> d;
  const std::size_t lanes = hn::Lanes(d);
  Padded pad(d, bias, nullptr, rows);
  Columns(
      d, cols,
      [&](std::size_t j, double& m, double& s) {
        const double* u_j = u + j * ld_u;
        const auto x_of = [&](std::size_t k) {
          const auto b = hn::Load(d, pad.bias.get() + k);
          if (k + lanes <= rows) return hn::Sub(b, hn::LoadU(d, u_j + k));
          // The last rows through a buffer: reading past them could leave the matrix.
          HWY_ALIGN double tail[kMaxLanes];
          for (std::size_t i = 0; i < lanes; ++i) tail[i] = k + i < rows ? u_j[k + i] : 0.0;
          return hn::Sub(b, hn::Load(d, tail));
        };
        Column(d, pad, x_of, p + j * ld_p, m, s);
      },
      log_norm);
}

void SoftmaxColumnsLinear(const double* bias, const double* levels, std::size_t rows,
                          const double* energies, std::size_t cols, double* p, std::size_t ld_p,
                          double* log_norm) {
  const hn::ScalableTag<double> d;
  Padded pad(d, bias, levels, rows);
  Columns(
      d, cols,
      [&](std::size_t j, double& m, double& s) {
        const auto e = hn::Set(d, energies[j]);
        // bias_k - levels_k e_j: u_kj is never stored.
        const auto x_of = [&](std::size_t k) {
          return hn::NegMulAdd(hn::Load(d, pad.levels.get() + k), e,
                               hn::Load(d, pad.bias.get() + k));
        };
        Column(d, pad, x_of, p + j * ld_p, m, s);
      },
      log_norm);
}

}  // namespace logz::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace logz {

HWY_EXPORT(SoftmaxColumnsDense);
HWY_EXPORT(SoftmaxColumnsLinear);

void softmax_columns(std::span<const double> bias, const double* u, std::size_t ld_u,
                     std::size_t cols, double* p, std::size_t ld_p, double* log_norm) {
  if (ld_u < bias.size() || ld_p < bias.size())
    fail_argument("logz::softmax_columns", "ld_u, ld_p",
                  "leading dimensions of at least the rows (bias.size())");
  HWY_DYNAMIC_DISPATCH(SoftmaxColumnsDense)
  (bias.data(), bias.size(), u, ld_u, cols, p, ld_p, log_norm);
}

void softmax_columns_linear(std::span<const double> bias, std::span<const double> levels,
                            std::span<const double> energies, double* p, std::size_t ld_p,
                            double* log_norm) {
  if (levels.size() != bias.size())
    fail_argument("logz::softmax_columns_linear", "levels", "one level per bias");
  if (ld_p < bias.size())
    fail_argument("logz::softmax_columns_linear", "ld_p", "at least the rows (bias.size())");
  HWY_DYNAMIC_DISPATCH(SoftmaxColumnsLinear)
  (bias.data(), levels.data(), bias.size(), energies.data(), energies.size(), p, ld_p, log_norm);
}

}  // namespace logz
#endif
