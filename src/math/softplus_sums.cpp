// Softplus sums over float inputs (softplus_sums.hpp), vectorised with Highway and dispatched at
// run time. Compiled once per Highway target (foreach_target re-includes this file).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include "hwy_dispatch.hpp"  // before Highway: the targets it dispatches to
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "math/softplus_sums.cpp"
// foreach_target.h first: it re-includes this file once per target.
// clang-format off
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
#include <hwy/contrib/math/math-inl.h>
// clang-format on

#include "logz/math/softplus_sums.hpp"

HWY_BEFORE_NAMESPACE();
namespace logz::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The float tag, and the double tag of half as many lanes that its halves are summed in.
using DF = hn::ScalableTag<float>;
using DH = hn::Half<DF>;
using DD = hn::Repartition<double, DF>;

// Float sums of one block of vectors before they join double accumulators: the float rounding
// grows with the block (8 terms per lane), not with the whole sum.
constexpr std::size_t kBlockVectors = 8;
// Vectors of factors 1 + x in [1, 2] multiplied (in double) before one log per lane: at most 2^64.
constexpr std::size_t kProductVectors = 64;

// Sums of K float contributions per element into double, a vector at a time, and with
// LogFactor, sums[K] = the sum of log(1 + x) over the elements' x in [0, 1] (x = e^-|z| for a
// softplus), taken as the log of the product of the 1 + x: formed in double (1 + x exact for a
// float x), one log per lane every kProductVectors vectors, where a float log1p per term was the
// most costly part of a softplus; each term keeps x's relative error. term(i, mask, out, x)
// writes the K contribution vectors and the x of elements i.. (mask: the lanes that hold
// elements, all but in the last vector; its loads must be masked and masked-off lanes may hold
// anything: they are zeroed, x set to 0, here). sums[k] receives the total of contribution k.
template <std::size_t K, bool LogFactor, class Term>
void SumTerms(std::size_t n, Term&& term, double* sums) {
  const DF df;
  const DH dh;
  const DD dd;
  using VF = hn::Vec<DF>;
  using VD = hn::Vec<DD>;
  const std::size_t lanes = hn::Lanes(df);
  VD total[K + 1];
  VF block[K];
  for (std::size_t k = 0; k <= K; ++k) total[k] = hn::Zero(dd);
  for (std::size_t k = 0; k < K; ++k) block[k] = hn::Zero(df);
  const VD unit = hn::Set(dd, 1.0);
  VD product_low = unit, product_high = unit;
  const auto flush = [&] {
    for (std::size_t k = 0; k < K; ++k) {
      total[k] = hn::Add(total[k], hn::PromoteTo(dd, hn::LowerHalf(dh, block[k])));
      total[k] = hn::Add(total[k], hn::PromoteTo(dd, hn::UpperHalf(dh, block[k])));
      block[k] = hn::Zero(df);
    }
  };
  const auto flush_product = [&] {
    if constexpr (LogFactor) {
      total[K] = hn::Add(total[K], hn::Add(hn::Log(dd, product_low), hn::Log(dd, product_high)));
      product_low = product_high = unit;
    }
  };
  const auto multiply = [&](VF x) {
    if constexpr (LogFactor) {
      product_low = hn::MulAdd(product_low, hn::PromoteTo(dd, hn::LowerHalf(dh, x)), product_low);
      product_high = hn::MulAdd(product_high, hn::PromoteTo(dd, hn::UpperHalf(dh, x)), product_high);
    }
  };
  const auto all = hn::FirstN(df, lanes);
  std::size_t i = 0, in_block = 0, in_product = 0;
  VF out[K];
  VF x = hn::Zero(df);
  for (; i + lanes <= n; i += lanes) {
    term(i, all, out, x);
    for (std::size_t k = 0; k < K; ++k) block[k] = hn::Add(block[k], out[k]);
    multiply(x);
    if (++in_block == kBlockVectors) flush(), in_block = 0;
    if (++in_product == kProductVectors) flush_product(), in_product = 0;
  }
  if (i < n) {
    const auto m = hn::FirstN(df, n - i);
    term(i, m, out, x);
    for (std::size_t k = 0; k < K; ++k) block[k] = hn::Add(block[k], hn::IfThenElseZero(m, out[k]));
    multiply(hn::IfThenElseZero(m, x));
  }
  flush();
  flush_product();
  for (std::size_t k = 0; k < K + LogFactor; ++k) {
    HWY_ALIGN double lane[HWY_MAX_BYTES / sizeof(double)];
    hn::Store(total[k], dd, lane);
    double s = 0.0;
    for (std::size_t l = 0; l < hn::Lanes(dd); ++l) s += lane[l];
    sums[k] = s;
  }
}

// sigmoid(z) from e = e^-|z|: 1 / (1 + e) for z >= 0, e / (1 + e) below. The reciprocal is the
// processor's estimate refined by one Newton step (about 23 bits; 1 + e is in [1, 2]).
template <class V>
V Sigmoid(V z, V e) {
  const DF df;
  const V one = hn::Set(df, 1.0f), x = hn::Add(one, e);
  V r = hn::ApproximateReciprocal(x);
  r = hn::Mul(r, hn::NegMulAdd(x, r, hn::Set(df, 2.0f)));
  return hn::IfThenElse(hn::Lt(z, hn::Zero(df)), hn::Mul(e, r), r);
}

double TemperedSoftplusSum(const float* y, const float* offset, double t, std::size_t n) {
  const DF df;
  const auto vt = hn::Set(df, static_cast<float>(t)), vs = hn::Set(df, static_cast<float>(1.0 - t));
  double sums[2];
  SumTerms<1, true>(n, [&](std::size_t i, auto m, auto* out, auto& x) {
    auto z = hn::Mul(vt, hn::MaskedLoad(m, df, y + i));
    if (offset) z = hn::MulAdd(vs, hn::MaskedLoad(m, df, offset + i), z);
    out[0] = hn::Max(z, hn::Zero(df));     // softplus(z) = this + log(1 + x), x = e^-|z|
    x = hn::Exp(df, hn::Neg(hn::Abs(z)));
  }, sums);
  return sums[0] + sums[1];
}

double SoftplusIncrementSum(const float* y, const float* offset, double t_from, double t_to, std::size_t n) {
  const DF df;
  const auto vt = hn::Set(df, static_cast<float>(t_from)), vdelta = hn::Set(df, static_cast<float>(t_to - t_from));
  auto largest = hn::Zero(df);  // max |delta d_i| (masked-off lanes load 0)
  double sum;
  SumTerms<1, false>(n, [&](std::size_t i, auto m, auto* out, auto&) {
    auto d = hn::MaskedLoad(m, df, y + i);
    auto o = hn::Zero(df);
    if (offset) o = hn::MaskedLoad(m, df, offset + i), d = hn::Sub(d, o);
    const auto z = hn::MulAdd(vt, d, o);
    const auto step = hn::Mul(vdelta, d);
    largest = hn::Max(largest, hn::Abs(step));
    const auto sigmoid = Sigmoid(z, hn::Exp(df, hn::Neg(hn::Abs(z))));
    out[0] = hn::Log1p(df, hn::Mul(sigmoid, hn::Expm1(df, step)));
  }, &sum);
  if (hn::GetLane(hn::MaxOfLanes(df, largest)) > 1.0f) return std::numeric_limits<double>::quiet_NaN();
  return sum;
}

void SoftplusAndSlopeSums(const float* y, double t, std::size_t n, double* out) {
  const DF df;
  const auto vt = hn::Set(df, static_cast<float>(t));
  double sums[3];
  SumTerms<2, true>(n, [&](std::size_t i, auto m, auto* terms, auto& x) {
    const auto yi = hn::MaskedLoad(m, df, y + i);
    const auto z = hn::Mul(vt, yi);
    const auto e = hn::Exp(df, hn::Neg(hn::Abs(z)));
    terms[0] = hn::Max(z, hn::Zero(df));  // softplus(z) = this + log(1 + e), e = e^-|z|
    terms[1] = hn::Mul(yi, Sigmoid(z, e));
    x = e;
  }, sums);
  out[0] = sums[0] + sums[2];
  out[1] = sums[1];
}

}  // namespace logz::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace logz {

HWY_EXPORT(TemperedSoftplusSum);
HWY_EXPORT(SoftplusIncrementSum);
HWY_EXPORT(SoftplusAndSlopeSums);

double tempered_softplus_sum(const float* y, const float* offset, double t, std::size_t n) {
  return HWY_DYNAMIC_DISPATCH(TemperedSoftplusSum)(y, offset, t, n);
}

double softplus_increment_sum(const float* y, const float* offset, double t_from, double t_to, std::size_t n) {
  return HWY_DYNAMIC_DISPATCH(SoftplusIncrementSum)(y, offset, t_from, t_to, n);
}

void softplus_and_slope_sums(const float* y, double t, std::size_t n, double& softplus, double& slope) {
  double out[2];
  HWY_DYNAMIC_DISPATCH(SoftplusAndSlopeSums)(y, t, n, out);
  softplus = out[0];
  slope = out[1];
}

}  // namespace logz
#endif  // HWY_ONCE
