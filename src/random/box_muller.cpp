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

#include "logz/random/philox.hpp"
#include "random/box_muller-inl.h"

HWY_BEFORE_NAMESPACE();
namespace logz::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The most doubles a vector of any x86 target holds; the buffers below are this long.
constexpr std::size_t kMaxLanes = 16;
static_assert(std::endian::native == std::endian::little,
              "BoxMuller reads pairs of 32-bit words as 64-bit lanes");

void BoxMuller(const std::uint32_t* bits, double* out, std::size_t pairs) {
  const hn::ScalableTag<double> d;
  const hn::RebindToUnsigned<decltype(d)> du;
  const std::size_t lanes = std::min(hn::Lanes(d), kMaxLanes);
  auto transform = [&](auto u1, auto u2, double* to) {
    hn::Vec<decltype(d)> z0, z1;
    BoxMullerPair(d, u1, u2, z0, z1);
    hn::StoreInterleaved2(z0, z1, d, to);
  };
  auto unit = [&](auto hi_lo) { return UnitFromBits(d, hi_lo); };
  std::size_t first = 0;
  // Whole vectors of pairs straight from the bits: the 64-bit words of a pair are (hi, lo) for
  // u1 then for u2; loaded little-endian, each word has hi in its low half, hence the rotation.
  for (; first + lanes <= pairs; first += lanes) {
    const auto a = hn::RotateRight<32>(
        hn::LoadU(du, reinterpret_cast<const std::uint64_t*>(bits + 4 * first)));
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

// Pair i from the words bits[2i] (r) and bits[2i + 1] (the angle), BoxMullerPairF on as many
// pairs as a vector of floats holds; a float widens to a double exactly.
void BoxMullerSingle(const std::uint32_t* bits, double* out, std::size_t pairs) {
  const hn::ScalableTag<float> df;
  const hn::RebindToUnsigned<decltype(df)> du;
  const std::size_t lanes = std::min(hn::Lanes(df), 2 * kMaxLanes);
  HWY_ALIGN std::uint32_t w[2 * 2 * kMaxLanes];
  HWY_ALIGN float z[2 * 2 * kMaxLanes];
  for (std::size_t first = 0; first < pairs; first += lanes) {
    const std::size_t n = std::min(lanes, pairs - first);
    for (std::size_t j = 0; j < 2 * lanes; ++j)
      w[j] = bits[2 * first + (j < 2 * n ? j : j % 2)];  // past the end: pair 0
    hn::Vec<decltype(df)> z0, z1;
    BoxMullerPairF(df, hn::ConcatEven(du, hn::Load(du, w + lanes), hn::Load(du, w)),
                   hn::ConcatOdd(du, hn::Load(du, w + lanes), hn::Load(du, w)), z0, z1);
    hn::Store(z0, df, z);
    hn::Store(z1, df, z + lanes);
    for (std::size_t j = 0; j < n; ++j) {
      out[2 * (first + j)] = static_cast<double>(z[j]);
      out[2 * (first + j) + 1] = static_cast<double>(z[lanes + j]);
    }
  }
}

}  // namespace logz::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace logz {

HWY_EXPORT(BoxMuller);
HWY_EXPORT(BoxMullerSingle);

void box_muller_single(const std::uint32_t* bits, double* out, std::size_t pairs) {
  HWY_DYNAMIC_DISPATCH(BoxMullerSingle)(bits, out, pairs);
}

void box_muller(const std::uint32_t* bits, double* out, std::size_t pairs) {
  HWY_DYNAMIC_DISPATCH(BoxMuller)(bits, out, pairs);
}

}  // namespace logz
#endif
