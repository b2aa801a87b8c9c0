// Sums of Fermi functions (fermi_sums.hpp), vectorised with Highway's exp and dispatched at run
// time to the best instruction set the processor has.
// Compiled once per Highway target (foreach_target re-includes this file).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include "hwy_dispatch.hpp"  // before Highway: the targets it dispatches to
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "math/fermi_sums.cpp"
// foreach_target.h first: it re-includes this file once per target.
// clang-format off
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
#include <hwy/contrib/math/math-inl.h>
// clang-format on

#include "logz/core/error.hpp"
#include "logz/math/fermi_sums.hpp"
#include "logz/math/value_range.hpp"

HWY_BEFORE_NAMESPACE();
namespace logz::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Terms summed into fresh accumulators before they join the totals: rounding grows with the
// block, not with the whole sum (10^6 terms and more).
constexpr std::size_t kBlock = 2048;

// The lanes of v added in lane order (the same order on every run).
template <class D, class V>
double SumLanes(D d, V v) {
  HWY_ALIGN double lane[HWY_MAX_BYTES / sizeof(double)];
  hn::Store(v, d, lane);
  double s = 0.0;
  for (std::size_t i = 0; i < hn::Lanes(d); ++i) s += lane[i];
  return s;
}

// out = {e^c sum w f(x), e^2c sum w f(x)^2, e^c sum w f(x) f(-x)} over x_i = a_i + shift; w = 1
// when weights is null. Needs c >= 0 and c <= x_i wherever x_i >= 0 (c = max(0, min x) does).
void FermiSumsOf(const double* a, const double* weights, std::size_t n, double shift, double c,
                 double* out) {
  const hn::ScalableTag<double> d;
  using V = hn::Vec<decltype(d)>;
  const std::size_t lanes = hn::Lanes(d);
  const V vshift = hn::Set(d, shift), vc = hn::Set(d, c), one = hn::Set(d, 1.0), zero = hn::Zero(d);
  const V e_minus_c = hn::Set(d, std::exp(-c));
  V total_f = zero, total_f2 = zero, total_ff = zero;
  V sum_f = zero, sum_f2 = zero, sum_ff = zero;
  // v = exp(c - |x|) <= 1, the one exp of a term. For x >= 0, f(x) e^c = v / (1 + v e^-c) and
  // f(-x) = 1 / (1 + v e^-c); for x < 0 (where c = 0), f(x) = 1 / (1 + v) and f(-x) = v / (1 + v).
  const auto add = [&](V a_i, V w_i) {
    const V x = hn::Add(a_i, vshift);
    const V v = hn::Exp(d, hn::Sub(vc, hn::Abs(x)));
    const V r = hn::Div(one, hn::MulAdd(v, e_minus_c, one));
    const V vr = hn::Mul(v, r);
    const auto negative = hn::Lt(x, zero);
    const V f = hn::IfThenElse(negative, r, vr), f_minus = hn::IfThenElse(negative, vr, r);
    const V wf = hn::Mul(w_i, f);
    sum_f = hn::Add(sum_f, wf);
    sum_f2 = hn::MulAdd(wf, f, sum_f2);
    sum_ff = hn::MulAdd(wf, f_minus, sum_ff);
  };
  const auto flush = [&] {
    total_f = hn::Add(total_f, sum_f), total_f2 = hn::Add(total_f2, sum_f2),
    total_ff = hn::Add(total_ff, sum_ff);
    sum_f = sum_f2 = sum_ff = zero;
  };
  std::size_t i = 0;
  while (i + lanes <= n) {
    const std::size_t end = std::min(n - n % lanes, i + kBlock);
    for (; i < end; i += lanes) add(hn::LoadU(d, a + i), weights ? hn::LoadU(d, weights + i) : one);
    flush();
  }
  if (i < n) {
    // The last terms through buffers; lanes past the end repeat a term with weight 0.
    HWY_ALIGN double tail_a[HWY_MAX_BYTES / sizeof(double)], tail_w[HWY_MAX_BYTES / sizeof(double)];
    for (std::size_t j = 0; j < lanes; ++j) {
      tail_a[j] = i + j < n ? a[i + j] : a[i];
      tail_w[j] = i + j < n ? (weights ? weights[i + j] : 1.0) : 0.0;
    }
    add(hn::Load(d, tail_a), hn::Load(d, tail_w));
    flush();
  }
  out[0] = SumLanes(d, total_f);
  out[1] = SumLanes(d, total_f2);
  out[2] = SumLanes(d, total_ff);
}

}  // namespace logz::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace logz {

HWY_EXPORT(FermiSumsOf);

FermiTerms::FermiTerms(std::span<const double> a, std::span<const double> weights)
    : a_(a), weights_(weights), lowest_(value_range(a).lowest) {
  if (!weights.empty() && weights.size() != a.size()) {
    fail_argument("logz::FermiTerms", "weights", "one weight per term, or none");
  }
}

FermiSums FermiTerms::at(double shift) const {
  FermiSums s;
  if (std::isnan(shift)) {
    s.f = s.f_squared = s.f_f_minus = std::numeric_limits<double>::quiet_NaN();
    return s;
  }
  s.log_scale = std::max(0.0, lowest_ + shift);
  double out[3];
  HWY_DYNAMIC_DISPATCH(FermiSumsOf)
  (a_.data(), weights_.empty() ? nullptr : weights_.data(), a_.size(), shift, s.log_scale, out);
  s.f = out[0];
  s.f_squared = out[1];
  s.f_f_minus = out[2];
  return s;
}

}  // namespace logz
#endif
