// Softplus sums over float inputs (softplus_sums.hpp), vectorised with Highway and dispatched at
// run time. Compiled once per Highway target (foreach_target re-includes this file).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <span>
#include <vector>

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
// Vectors of factors 1 + x multiplied (in double) before one log per lane: within [2^-64, 2^64]
// for x in [0, 1] (softplus), within [e^-64, e^64] for x in [e^-1 - 1, e - 1] (increments).
constexpr std::size_t kProductVectors = 64;

// Sums of K float contributions per element into double, a vector at a time, and with
// LogFactor, sums[K] = the sum of log(1 + x) over the elements' x (x = e^-|z| in [0, 1] for a
// softplus; a work increment's terms, within [e^-1 - 1, e - 1]), taken as the log of the product
// of the 1 + x: formed in double (1 + x exact for a float x), one log per lane every
// kProductVectors vectors, where a float log1p per term was the most costly part of a softplus;
// each term keeps x's relative error. term(i, mask, out, x)
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
      product_high =
          hn::MulAdd(product_high, hn::PromoteTo(dd, hn::UpperHalf(dh, x)), product_high);
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
  SumTerms<1, true>(
      n,
      [&](std::size_t i, auto m, auto* out, auto& x) {
        auto z = hn::Mul(vt, hn::MaskedLoad(m, df, y + i));
        if (offset) z = hn::MulAdd(vs, hn::MaskedLoad(m, df, offset + i), z);
        out[0] = hn::Max(z, hn::Zero(df));  // softplus(z) = this + log(1 + x), x = e^-|z|
        x = hn::Exp(df, hn::Neg(hn::Abs(z)));
      },
      sums);
  return sums[0] + sums[1];
}

double SoftplusIncrementSum(const float* y, const float* offset, double t_from, double t_to,
                            std::size_t n) {
  const DF df;
  const auto vt = hn::Set(df, static_cast<float>(t_from)),
             vdelta = hn::Set(df, static_cast<float>(t_to - t_from));
  auto largest = hn::Zero(df);  // max |delta d_i| (masked-off lanes load 0)
  double sums[2];               // sums[0] is empty: the terms are all in the log of the product
  SumTerms<1, true>(
      n,
      [&](std::size_t i, auto m, auto* out, auto& x) {
        auto d = hn::MaskedLoad(m, df, y + i);
        auto o = hn::Zero(df);
        if (offset) o = hn::MaskedLoad(m, df, offset + i), d = hn::Sub(d, o);
        const auto z = hn::MulAdd(vt, d, o);
        const auto step = hn::Mul(vdelta, d);
        largest = hn::Max(largest, hn::Abs(step));
        const auto sigmoid = Sigmoid(z, hn::Exp(df, hn::Neg(hn::Abs(z))));
        out[0] = hn::Zero(df);
        x = hn::Mul(sigmoid,
                    hn::Expm1(df, step));  // log1p(x), x in [e^-1 - 1, e - 1] where |step| <= 1
      },
      sums);
  if (hn::GetLane(hn::MaxOfLanes(df, largest)) > 1.0f)
    return std::numeric_limits<double>::quiet_NaN();
  return sums[1];
}

void SoftplusAndSlopeSums(const float* y, double t, std::size_t n, double* out) {
  const DF df;
  const auto vt = hn::Set(df, static_cast<float>(t));
  double sums[3];
  SumTerms<2, true>(
      n,
      [&](std::size_t i, auto m, auto* terms, auto& x) {
        const auto yi = hn::MaskedLoad(m, df, y + i);
        const auto z = hn::Mul(vt, yi);
        const auto e = hn::Exp(df, hn::Neg(hn::Abs(z)));
        terms[0] = hn::Max(z, hn::Zero(df));  // softplus(z) = this + log(1 + e), e = e^-|z|
        terms[1] = hn::Mul(yi, Sigmoid(z, e));
        x = e;
      },
      sums);
  out[0] = sums[0] + sums[2];
  out[1] = sums[1];
}

// y_i.. as doubles, zero past n (the last vector is read from a copy: never past the array).
hn::Vec<DD> LoadPromoted(const float* y, std::size_t i, std::size_t n) {
  const DD dd;
  const hn::Rebind<float, DD> df;
  const std::size_t lanes = hn::Lanes(dd);
  if (i + lanes <= n) return hn::PromoteTo(dd, hn::LoadU(df, y + i));
  HWY_ALIGN float tail[HWY_MAX_BYTES / sizeof(double)] = {};
  if (i < n) std::copy(y + i, y + n, tail);
  return hn::PromoteTo(dd, hn::Load(df, tail));
}

// Input vectors taken together per pass over a piece's levels: four independent recurrences, so
// that the multiply's latency is hidden, and one product update per level for all four.
constexpr std::size_t kGroup = 4;  // the level loop below is written out for four

// Every level's sums at once on a ladder piece of equally spaced fractions t_j = t_first + j h
// (j < count, all >= 0), in double lanes. With a = |y_i| and e_j = e^(-t_j a):
//   sum_i softplus(t_j y_i) = t_j sum_i max(y_i, 0) + sum_i log(1 + e_j),
//   sum_i y_i sigmoid(t_j y_i) = sum_i min(y_i, 0) + sum_i a / (1 + e_j),
// and e_{j+1} = e_j e^(-h a): two exps per input for the whole piece, then a multiply per level
// (in double: after 128 levels the recurrence has lost about 1e-14 relative). Per level, the
// 1 + e are multiplied in `product` (a log every kProductVectors groups into `logs`: at most
// 2^256) and the a / (1 + e) summed in `slope` (null: not wanted); each holds count vectors of
// Lanes(dd). The four inputs' slope terms share one reciprocal (of their product of 1 + e), the
// processor's float estimate refined by two Newton steps.
void PieceLevelSums(const float* y, std::size_t n, double t_first, double h, std::size_t count,
                    double* product, double* logs, double* slope) {
  const DD dd;
  const hn::Rebind<float, DD> df;
  using V = hn::Vec<DD>;
  const std::size_t lanes = hn::Lanes(dd);
  const V one = hn::Set(dd, 1.0), two = hn::Set(dd, 2.0), zero = hn::Zero(dd);
  const V neg_first = hn::Set(dd, -t_first), neg_h = hn::Set(dd, -h);
  for (std::size_t j = 0; j < count; ++j) {
    hn::StoreU(one, dd, product + j * lanes);
    hn::StoreU(zero, dd, logs + j * lanes);
    if (slope) hn::StoreU(zero, dd, slope + j * lanes);
  }
  const auto flush = [&] {
    for (std::size_t j = 0; j < count; ++j) {
      double* p = product + j * lanes;
      hn::StoreU(hn::Add(hn::LoadU(dd, logs + j * lanes), hn::Log(dd, hn::LoadU(dd, p))), dd,
                 logs + j * lanes);
      hn::StoreU(one, dd, p);
    }
  };
  const auto reciprocal = [&](V x) {
    V q = hn::PromoteTo(dd, hn::ApproximateReciprocal(hn::DemoteTo(df, x)));
    q = hn::Mul(q, hn::NegMulAdd(x, q, two));
    return hn::Mul(q, hn::NegMulAdd(x, q, two));
  };
  std::size_t in_product = 0;
  for (std::size_t i = 0; i < n; i += kGroup * lanes) {
    V a[kGroup], e[kGroup], r[kGroup];
    for (std::size_t g = 0; g < kGroup; ++g) {
      const std::size_t at = i + g * lanes, valid = n > at ? n - at : 0;
      a[g] = hn::Abs(LoadPromoted(y, at, n));
      // Lanes past the end: a = 0 and e = 0, a factor 1 and a zero slope term.
      e[g] = hn::IfThenElseZero(hn::FirstN(dd, valid), hn::Exp(dd, hn::Mul(neg_first, a[g])));
      r[g] = hn::Exp(dd, hn::Mul(neg_h, a[g]));
    }
    for (std::size_t j = 0; j < count; ++j) {
      const V x0 = hn::Add(one, e[0]), x1 = hn::Add(one, e[1]), x2 = hn::Add(one, e[2]),
              x3 = hn::Add(one, e[3]);
      const V x01 = hn::Mul(x0, x1), x23 = hn::Mul(x2, x3), all = hn::Mul(x01, x23);
      double* p = product + j * lanes;
      hn::StoreU(hn::Mul(hn::LoadU(dd, p), all), dd, p);
      if (slope) {  // a0/x0 + a1/x1 + a2/x2 + a3/x3 over one denominator (all in [1, 16]): one
                    // reciprocal
        double* s = slope + j * lanes;
        const V n01 = hn::MulAdd(a[0], x1, hn::Mul(a[1], x0)),
                n23 = hn::MulAdd(a[2], x3, hn::Mul(a[3], x2));
        const V numerator = hn::MulAdd(n01, x23, hn::Mul(n23, x01));
        hn::StoreU(hn::MulAdd(numerator, reciprocal(all), hn::LoadU(dd, s)), dd, s);
      }
      for (std::size_t g = 0; g < kGroup; ++g) e[g] = hn::Mul(e[g], r[g]);
    }
    if (++in_product == kProductVectors) flush(), in_product = 0;
  }
  flush();
}

// sum_i max(y_i, 0) and sum_i min(y_i, 0), in double; both NaN if some y_i is (max and min
// would drop it, and the level sums' exps turn it into a zero term: this keeps it visible).
void PositiveAndNegativeSums(const float* y, std::size_t n, double* out) {
  const DD dd;
  const std::size_t lanes = hn::Lanes(dd);
  auto plus = hn::Zero(dd), minus = hn::Zero(dd), all = hn::Zero(dd);
  for (std::size_t i = 0; i < n; i += lanes) {
    const auto v = LoadPromoted(y, i, n);
    plus = hn::Add(plus, hn::Max(v, hn::Zero(dd)));
    minus = hn::Add(minus, hn::Min(v, hn::Zero(dd)));
    all = hn::Add(all, v);
  }
  const bool nan = std::isnan(hn::GetLane(hn::SumOfLanes(dd, all)));
  out[0] = nan ? std::numeric_limits<double>::quiet_NaN() : hn::GetLane(hn::SumOfLanes(dd, plus));
  out[1] = nan ? std::numeric_limits<double>::quiet_NaN() : hn::GetLane(hn::SumOfLanes(dd, minus));
}

std::size_t DoubleLanes() { return hn::Lanes(DD()); }

}  // namespace logz::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace logz {

HWY_EXPORT(TemperedSoftplusSum);
HWY_EXPORT(SoftplusIncrementSum);
HWY_EXPORT(SoftplusAndSlopeSums);
HWY_EXPORT(PieceLevelSums);
HWY_EXPORT(PositiveAndNegativeSums);
HWY_EXPORT(DoubleLanes);

double tempered_softplus_sum(const float* y, const float* offset, double t, std::size_t n) {
  return HWY_DYNAMIC_DISPATCH(TemperedSoftplusSum)(y, offset, t, n);
}

double softplus_increment_sum(const float* y, const float* offset, double t_from, double t_to,
                              std::size_t n) {
  return HWY_DYNAMIC_DISPATCH(SoftplusIncrementSum)(y, offset, t_from, t_to, n);
}

void softplus_and_slope_sums(const float* y, double t, std::size_t n, double& softplus,
                             double& slope) {
  double out[2];
  HWY_DYNAMIC_DISPATCH(SoftplusAndSlopeSums)(y, t, n, out);
  softplus = out[0];
  slope = out[1];
}

namespace {

// Levels per piece: a piece's per-level accumulators (3 x 128 vectors) stay in the first caches.
constexpr std::size_t kPieceLevels = 128;

struct LadderPiece {
  std::size_t first, count;
  double step;
};

// The ladder cut into runs of equally spaced fractions (to 1e-12), at most kPieceLevels each:
// O(K), cut again per call into a kept vector (no allocation once grown).
void equally_spaced_pieces(std::span<const double> t, std::vector<LadderPiece>& pieces) {
  pieces.clear();
  for (std::size_t k = 0; k < t.size();) {
    LadderPiece p{k, 1, 0.0};
    if (k + 1 < t.size()) {
      p.step = t[k + 1] - t[k];
      while (k + p.count < t.size() && p.count < kPieceLevels &&
             std::abs(t[k + p.count] - (t[k] + static_cast<double>(p.count) * p.step)) <= 1e-12)
        ++p.count;
    }
    pieces.push_back(p);
    k += p.count;
  }
}

}  // namespace

void softplus_level_sums(const float* y, std::size_t n, std::span<const double> t, double* softplus,
                         double* slope) {
  thread_local std::vector<LadderPiece> pieces;
  equally_spaced_pieces(t, pieces);
  const bool nonnegative = std::all_of(t.begin(), t.end(), [](double x) { return x >= 0.0; });
  if (!nonnegative || 4 * pieces.size() > t.size()) {  // no long runs: level by level
    for (std::size_t k = 0; k < t.size(); ++k) {
      if (slope)
        softplus_and_slope_sums(y, t[k], n, softplus[k], slope[k]);
      else
        softplus[k] = tempered_softplus_sum(y, nullptr, t[k], n);
    }
    return;
  }
  double signs[2];
  HWY_DYNAMIC_DISPATCH(PositiveAndNegativeSums)(y, n, signs);
  const std::size_t lanes = HWY_DYNAMIC_DISPATCH(DoubleLanes)();
  thread_local std::vector<double> scratch;
  scratch.resize(3 * kPieceLevels * lanes);
  double* product = scratch.data();
  double* logs = product + kPieceLevels * lanes;
  double* slopes = slope ? logs + kPieceLevels * lanes : nullptr;
  for (const LadderPiece& p : pieces) {
    HWY_DYNAMIC_DISPATCH(PieceLevelSums)(y, n, t[p.first], p.step, p.count, product, logs, slopes);
    for (std::size_t j = 0; j < p.count; ++j) {
      const std::size_t k = p.first + j;
      double log_sum = 0.0, slope_sum = 0.0;
      for (std::size_t l = 0; l < lanes; ++l) {
        log_sum += logs[j * lanes + l];
        if (slopes) slope_sum += slopes[j * lanes + l];
      }
      softplus[k] = t[k] * signs[0] + log_sum;
      if (slope) slope[k] = signs[1] + slope_sum;
    }
  }
}

}  // namespace logz
#endif  // HWY_ONCE
