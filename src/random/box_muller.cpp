// Standard normals from Philox bits by the Box-Muller transform, vectorised with Highway's math
// functions and dispatched at run time to the best instruction set the processor has.
// Compiled once per Highway target (foreach_target re-includes this file).
#include <algorithm>
#include <cstddef>
#include <cstdint>

// Highway 1.0.3 (Debian 12) leaves AVX3_DL out of the dispatched targets even when the build's
// own flags have it (-march=native on a processor with it), and then refuses to compile.
#ifndef HWY_WANT_AVX3_DL
#define HWY_WANT_AVX3_DL
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "random/box_muller.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
#include <hwy/contrib/math/math-inl.h>

#include "logz/random/philox.hpp"

HWY_BEFORE_NAMESPACE();
namespace logz::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The most doubles a vector of any x86 target holds; the buffers below are this long.
constexpr std::size_t kMaxLanes = 16;

void BoxMuller(const std::uint32_t* bits, double* out, std::size_t pairs) {
  const hn::ScalableTag<double> d;
  const std::size_t lanes = std::min(hn::Lanes(d), kMaxLanes);
  HWY_ALIGN double u1[kMaxLanes], u2[kMaxLanes], c[kMaxLanes], s[kMaxLanes];
  const auto minus_two = hn::Set(d, -2.0), two_pi = hn::Set(d, 6.283185307179586476925286766559);
  for (std::size_t first = 0; first < pairs; first += lanes) {
    const std::size_t n = std::min(lanes, pairs - first);
    for (std::size_t j = 0; j < lanes; ++j) {
      const std::uint32_t* b = bits + 4 * (first + (j < n ? j : 0));  // lanes past the end repeat a pair
      u1[j] = detail::unit_interval(b[0], b[1]);
      u2[j] = detail::unit_interval(b[2], b[3]);
    }
    const auto r = hn::Sqrt(hn::Mul(minus_two, hn::Log(d, hn::Load(d, u1))));
    const auto theta = hn::Mul(two_pi, hn::Load(d, u2));
    hn::Store(hn::Mul(r, hn::Cos(d, theta)), d, c);
    hn::Store(hn::Mul(r, hn::Sin(d, theta)), d, s);
    for (std::size_t j = 0; j < n; ++j) {
      out[2 * (first + j)] = c[j];
      out[2 * (first + j) + 1] = s[j];
    }
  }
}

}  // namespace logz::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace logz {

HWY_EXPORT(BoxMuller);

void box_muller(const std::uint32_t* bits, double* out, std::size_t pairs) {
  HWY_DYNAMIC_DISPATCH(BoxMuller)(bits, out, pairs);
}

}  // namespace logz
#endif
