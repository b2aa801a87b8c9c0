// Standard normals from Philox bits by the Box-Muller transform, vectorised with Highway's math
// functions and dispatched at run time to the best instruction set the processor has.
// Compiled once per Highway target (foreach_target re-includes this file).
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>

#include "hwy_dispatch.hpp"  // before Highway: the targets it dispatches to
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
static_assert(std::endian::native == std::endian::little, "BoxMuller reads pairs of 32-bit words as 64-bit lanes");

void BoxMuller(const std::uint32_t* bits, double* out, std::size_t pairs) {
  const hn::ScalableTag<double> d;
  const hn::RebindToUnsigned<decltype(d)> du;
  const hn::RebindToSigned<decltype(d)> di;
  const std::size_t lanes = std::min(hn::Lanes(d), kMaxLanes);
  const auto minus_two = hn::Set(d, -2.0), two_pi = hn::Set(d, 6.283185307179586476925286766559);
  const auto half = hn::Set(d, 0.5), ulp = hn::Set(d, 0x1.0p-53);
  // 53 of the 64 bits hi:lo as a double in (0, 1): detail::unit_interval, a lane at a time.
  auto unit = [&](auto hi_lo) { return hn::Mul(hn::Add(hn::ConvertTo(d, hn::BitCast(di, hn::ShiftRight<11>(hi_lo))), half), ulp); };
  auto transform = [&](auto u1, auto u2, double* to) {
    const auto r = hn::Sqrt(hn::Mul(minus_two, hn::Log(d, u1)));
    const auto theta = hn::Mul(two_pi, u2);
    hn::StoreInterleaved2(hn::Mul(r, hn::Cos(d, theta)), hn::Mul(r, hn::Sin(d, theta)), d, to);
  };
  std::size_t first = 0;
  // Whole vectors of pairs straight from the bits: the 64-bit words of a pair are (hi, lo) for
  // u1 then for u2; loaded little-endian, each word has hi in its low half, hence the rotation.
  for (; first + lanes <= pairs; first += lanes) {
    const auto a = hn::RotateRight<32>(hn::LoadU(du, reinterpret_cast<const std::uint64_t*>(bits + 4 * first)));
    const auto b = hn::RotateRight<32>(
        hn::LoadU(du, reinterpret_cast<const std::uint64_t*>(bits + 4 * first + 2 * lanes)));
    transform(unit(hn::ConcatEven(du, b, a)), unit(hn::ConcatOdd(du, b, a)), out + 2 * first);
  }
  if (first == pairs) return;
  // The last pairs through buffers, the lanes past the end repeating a pair.
  HWY_ALIGN double u1[kMaxLanes], u2[kMaxLanes], z[2 * kMaxLanes];
  const std::size_t n = pairs - first;
  for (std::size_t j = 0; j < lanes; ++j) {
    const std::uint32_t* b = bits + 4 * (first + (j < n ? j : 0));
    u1[j] = detail::unit_interval(b[0], b[1]);
    u2[j] = detail::unit_interval(b[2], b[3]);
  }
  transform(hn::Load(d, u1), hn::Load(d, u2), z);
  std::copy(z, z + 2 * n, out + 2 * first);
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
