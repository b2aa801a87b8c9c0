// Array versions of the log-space functions (log_space_arrays.hpp), vectorised with Highway's exp,
// log and log1p and dispatched at run time to the best instruction set the processor has.
// Compiled once per Highway target (foreach_target re-includes this file).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include "hwy_dispatch.hpp"  // before Highway: the targets it dispatches to
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "math/log_space_arrays.cpp"
// foreach_target.h first: it re-includes this file once per target.
// clang-format off
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
#include <hwy/contrib/math/math-inl.h>
// clang-format on

#include "logz/core/error.hpp"
#include "logz/math/log_space_arrays.hpp"

HWY_BEFORE_NAMESPACE();
namespace logz::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Terms summed into fresh accumulators before they join the total: rounding grows with the
// block, not with the whole sum.
constexpr std::size_t kBlock = 2048;

// out_i = f(x_i) a vector at a time, the last values through a buffer.
template <class F>
void Elementwise(const double* x, double* out, std::size_t n, F&& f) {
  const hn::ScalableTag<double> d;
  const std::size_t lanes = hn::Lanes(d);
  std::size_t i = 0;
  for (; i + lanes <= n; i += lanes) hn::StoreU(f(hn::LoadU(d, x + i)), d, out + i);
  if (i == n) return;
  HWY_ALIGN double tail[HWY_MAX_BYTES / sizeof(double)];
  for (std::size_t j = 0; j < lanes; ++j) tail[j] = i + j < n ? x[i + j] : 0.0;
  hn::Store(f(hn::Load(d, tail)), d, tail);
  std::copy(tail, tail + (n - i), out + i);
}

void Log1pExpOf(const double* x, double* out, std::size_t n) {
  const hn::ScalableTag<double> d;
  const auto zero = hn::Zero(d);
  // log(1 + e^x) = max(x, 0) + log1p(e^-|x|): the exp is of a number <= 0, so never overflows.
  Elementwise(x, out, n, [&](auto v) {
    const auto r = hn::Add(hn::Max(v, zero), hn::Log1p(d, hn::Exp(d, hn::Neg(hn::Abs(v)))));
    return hn::IfThenElse(hn::IsNaN(v), v, r);
  });
}

void ExpOf(const double* x, double* out, std::size_t n) {
  const hn::ScalableTag<double> d;
  // Highway's Exp gives 0 for NaN: kept NaN, as std::exp.
  Elementwise(x, out, n, [&](auto v) { return hn::IfThenElse(hn::IsNaN(v), v, hn::Exp(d, v)); });
}

double LogSumExpScaled(const double* x, std::size_t n, double scale) {
  const hn::ScalableTag<double> d;
  using V = hn::Vec<decltype(d)>;
  const std::size_t lanes = hn::Lanes(d);
  const std::size_t whole = n - n % lanes;
  const V vscale = hn::Set(d, scale), zero = hn::Zero(d), one = hn::Set(d, 1.0);
  const double inf = std::numeric_limits<double>::infinity();
  // First pass: the maximum, and whether any term is NaN.
  V vmax = hn::Set(d, -inf), nans = zero;
  for (std::size_t i = 0; i < whole; i += lanes) {
    const V y = hn::Mul(vscale, hn::LoadU(d, x + i));
    vmax = hn::Max(vmax, y);
    nans = hn::Add(nans, hn::IfThenElseZero(hn::IsNaN(y), one));
  }
  double m = hn::GetLane(hn::MaxOfLanes(d, vmax));
  bool nan = hn::GetLane(hn::MaxOfLanes(d, nans)) > 0.0;
  for (std::size_t i = whole; i < n; ++i) {
    const double y = scale * x[i];
    nan = nan || std::isnan(y);
    m = std::max(m, y);
  }
  if (nan) return std::numeric_limits<double>::quiet_NaN();
  if (m == -inf || m == inf) return m;
  // Second pass: shifted by the maximum, every term is exp(<= 0) and the largest is exactly 1.
  const V vm = hn::Set(d, m);
  V total = zero;
  for (std::size_t i = 0; i < whole;) {
    const std::size_t end = std::min(whole, i + kBlock);
    V sum = zero;
    for (; i < end; i += lanes)
      sum = hn::Add(sum, hn::Exp(d, hn::MulSub(vscale, hn::LoadU(d, x + i), vm)));
    total = hn::Add(total, sum);
  }
  HWY_ALIGN double lane[HWY_MAX_BYTES / sizeof(double)];
  hn::Store(total, d, lane);
  double s = 0.0;
  for (std::size_t j = 0; j < lanes; ++j) s += lane[j];
  for (std::size_t i = whole; i < n; ++i) s += std::exp(scale * x[i] - m);
  return m + std::log(s);
}

}  // namespace logz::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace logz {

HWY_EXPORT(Log1pExpOf);
HWY_EXPORT(LogSumExpScaled);
HWY_EXPORT(ExpOf);

void exp_array(std::span<const double> x, std::span<double> out) {
  if (out.size() != x.size()) fail_argument("logz::exp_array", "out", "as many values as x");
  HWY_DYNAMIC_DISPATCH(ExpOf)(x.data(), out.data(), x.size());
}

void log1p_exp(std::span<const double> x, std::span<double> out) {
  if (out.size() != x.size()) fail_argument("logz::log1p_exp", "out", "as many values as x");
  HWY_DYNAMIC_DISPATCH(Log1pExpOf)(x.data(), out.data(), x.size());
}

double log_sum_exp_scaled(std::span<const double> x, double scale) {
  return HWY_DYNAMIC_DISPATCH(LogSumExpScaled)(x.data(), x.size(), scale);
}

}  // namespace logz
#endif
