// dot_in_double (dot_in_double.hpp), compiled once per Highway target.
#include <algorithm>
#include <cstddef>

#include "hwy_dispatch.hpp"  // before Highway: the targets it dispatches to
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "math/dot_in_double.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "logz/math/dot_in_double.hpp"

HWY_BEFORE_NAMESPACE();
namespace logz::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

constexpr std::size_t kLanes = 8;  // accumulator lanes on every target

double DotInDouble(const float* x, const float* y, std::size_t n) {
  const hn::CappedTag<double, kLanes> d;
  const hn::Rebind<float, decltype(d)> df;
  const std::size_t lanes = hn::Lanes(d), vectors = kLanes / lanes;
  hn::Vec<decltype(d)> sum[kLanes];
  for (std::size_t k = 0; k < vectors; ++k) sum[k] = hn::Zero(d);
  const auto add8 = [&](const float* a, const float* b) {
    for (std::size_t k = 0; k < vectors; ++k) {
      sum[k] = hn::MulAdd(hn::PromoteTo(d, hn::LoadU(df, a + k * lanes)),
                          hn::PromoteTo(d, hn::LoadU(df, b + k * lanes)), sum[k]);
    }
  };
  std::size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) add8(x + i, y + i);
  if (i < n) {
    // The last few through zero-padded copies: 0 * 0 adds nothing, exactly.
    float a[kLanes] = {}, b[kLanes] = {};
    std::copy(x + i, x + n, a);
    std::copy(y + i, y + n, b);
    add8(a, b);
  }
  HWY_ALIGN double lane[kLanes];
  for (std::size_t k = 0; k < vectors; ++k) hn::Store(sum[k], d, lane + k * lanes);
  return ((lane[0] + lane[4]) + (lane[1] + lane[5])) + ((lane[2] + lane[6]) + (lane[3] + lane[7]));
}

}  // namespace logz::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace logz {

HWY_EXPORT(DotInDouble);

double dot_in_double(const float* x, const float* y, std::size_t n) {
  return HWY_DYNAMIC_DISPATCH(DotInDouble)(x, y, n);
}

}  // namespace logz
#endif
