// value_range (value_range.hpp), vectorised with Highway and dispatched at run time.
#include <algorithm>
#include <cstddef>
#include <limits>

#include "hwy_dispatch.hpp"  // before Highway: the targets it dispatches to
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "math/value_range.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "logz/math/value_range.hpp"

HWY_BEFORE_NAMESPACE();
namespace logz::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

ValueRange RangeOf(const double* a, std::size_t n) {
  const hn::ScalableTag<double> d;
  const std::size_t lanes = hn::Lanes(d);
  constexpr double kInf = std::numeric_limits<double>::infinity();
  // Two accumulators of each: the loop is not one long chain of dependent min/max.
  auto low0 = hn::Set(d, kInf), low1 = low0, high0 = hn::Set(d, -kInf), high1 = high0;
  std::size_t i = 0;
  for (; i + 2 * lanes <= n; i += 2 * lanes) {
    const auto x0 = hn::LoadU(d, a + i), x1 = hn::LoadU(d, a + i + lanes);
    low0 = hn::Min(low0, x0);
    low1 = hn::Min(low1, x1);
    high0 = hn::Max(high0, x0);
    high1 = hn::Max(high1, x1);
  }
  ValueRange r{hn::GetLane(hn::MinOfLanes(d, hn::Min(low0, low1))),
               hn::GetLane(hn::MaxOfLanes(d, hn::Max(high0, high1)))};
  for (; i < n; ++i) r.lowest = std::min(r.lowest, a[i]), r.highest = std::max(r.highest, a[i]);
  return r;
}

}  // namespace logz::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace logz {

HWY_EXPORT(RangeOf);

ValueRange value_range(std::span<const double> values) {
  return HWY_DYNAMIC_DISPATCH(RangeOf)(values.data(), values.size());
}

}  // namespace logz
#endif
