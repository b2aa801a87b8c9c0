// Bulk draws for a batch of particles (particle_draws.hpp), vectorised across particles: lane
// l of a vector is particle l of a group, so Philox makes block j of every particle's stream at
// once (the counter differs only in its particle word) and Box-Muller takes its bits straight
// from those blocks. The numbers are bitwise those of RandomStream::uniform and fill_normal
// (the same words, the same transform: box_muller-inl.h). Dispatched at run time with Highway.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "hwy_dispatch.hpp"  // before Highway: the targets it dispatches to
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "random/particle_draws.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "logz/random/particle_draws.hpp"
#include "random/box_muller-inl.h"
#include "random/philox_lanes-inl.h"

HWY_BEFORE_NAMESPACE();
namespace logz::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

constexpr std::size_t kMaxLanes = HWY_MAX_BYTES / sizeof(std::uint64_t);
// Normals made before they are transposed out: 23 pairs need at most 24 blocks, made four at a
// time, so a d = 36 step (18 pairs, 19 blocks) wastes one block, not five.
constexpr std::size_t kPairsPerPass = 23;
constexpr std::size_t kBlocksPerPass = kPairsPerPass + 1;

// The N x N square at `square` (row r: lanes 0..N-1) transposed: lane l's column goes to
// to[l * stride .. l * stride + N), for the first `lanes` lanes. log2 N rounds of pairing rows
// 2k and 2k + 1 into their even and their odd lanes each rotate the square's flat index right by
// one bit; log2 N of them swap its row and column bits.
template <class D>
HWY_INLINE void StoreTransposed(D d, const double* square, std::size_t lanes, double* to,
                                std::size_t stride) {
  const std::size_t N = hn::Lanes(d);
  hn::Vec<D> a[kMaxLanes], b[kMaxLanes];
  for (std::size_t r = 0; r < N; ++r) a[r] = hn::Load(d, square + r * N);
  for (std::size_t rounds = N; rounds > 1; rounds /= 2) {
    for (std::size_t k = 0; k < N / 2; ++k) {
      b[k] = hn::ConcatEven(d, a[2 * k + 1], a[2 * k]);
      b[N / 2 + k] = hn::ConcatOdd(d, a[2 * k + 1], a[2 * k]);
    }
    for (std::size_t r = 0; r < N; ++r) a[r] = b[r];
  }
  for (std::size_t l = 0; l < lanes; ++l) hn::StoreU(a[l], d, to + l * stride);
}

void DrawUniformAndNormals(std::uint64_t seed, std::uint32_t purpose, std::uint32_t step,
                           std::uint64_t first, std::size_t num, bool uniform_first, bool single,
                           double* uniforms, double* normals, std::size_t n, std::size_t stride) {
  const hn::ScalableTag<std::uint64_t> du;
  const hn::Rebind<double, decltype(du)> d;
  const std::size_t N = std::min(hn::Lanes(du), kMaxLanes);
  const LaneKeys<hn::ScalableTag<std::uint64_t>> key(
      du, PhiloxKey{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)});
  const std::size_t pairs = (n + 1) / 2;
  // Word k of a stream is word k % 4 of block k / 4. Uniform first: the uniform is words 0, 1
  // and pair i words 2 + 4i .. 5 + 4i (blocks i and i + 1); else pair i is block i and the
  // uniform block `pairs`.
  const std::size_t offset = uniform_first ? 1 : 0;
  HWY_ALIGN std::uint64_t blocks[kBlocksPerPass * 4 * kMaxLanes];
  HWY_ALIGN double z[2 * kPairsPerPass * kMaxLanes], u[kMaxLanes];
  auto word = [&](std::size_t b, std::size_t w) { return hn::Load(du, blocks + (4 * b + w) * N); };
  for (std::size_t g = 0; g < num; g += N) {
    const std::size_t lanes = std::min(N, num - g);
    const auto particle = hn::Add(hn::Iota(du, 0), hn::Set(du, first + g));
    const LaneRoundsStart<hn::ScalableTag<std::uint64_t>> start(
        du, LaneStreams<hn::ScalableTag<std::uint64_t>>(du, step, purpose, particle), key);
    auto make_blocks = [&](std::size_t j0, std::size_t count) {  // four at a time, then the rest
      std::size_t i = 0;
      for (; i + 4 <= count; i += 4)
        PhiloxLaneBlocks<4>(du, j0 + i, start, key, blocks + 4 * i * N);
      if (count - i == 3) PhiloxLaneBlocks<3>(du, j0 + i, start, key, blocks + 4 * i * N);
      if (count - i == 2) PhiloxLaneBlocks<2>(du, j0 + i, start, key, blocks + 4 * i * N);
      if (count - i == 1) PhiloxLaneBlocks<1>(du, j0 + i, start, key, blocks + 4 * i * N);
    };
    auto store_uniform = [&](std::size_t b) {
      hn::Store(UnitFromBits(d, hn::Or(hn::ShiftLeft<32>(word(b, 0)), word(b, 1))), d, u);
      for (std::size_t l = 0; l < lanes; ++l) uniforms[g + l] = u[l];
    };
    if (pairs == 0) {
      make_blocks(0, 1);
      store_uniform(0);
    }
    // Transposed out: row r of z holds normal 2 i0 + r of every lane's particle. Whole
    // squares of N rows in registers, the last rows lane by lane.
    auto store_rows = [&](std::size_t i0, std::size_t m) {
      const std::size_t rows = std::min(2 * m, n - 2 * i0);
      std::size_t r0 = 0;
      for (; r0 + N <= rows; r0 += N)
        StoreTransposed(d, z + r0 * N, lanes, normals + g * stride + 2 * i0 + r0, stride);
      for (std::size_t l = 0; l < lanes; ++l) {
        double* to = normals + (g + l) * stride + 2 * i0;
        for (std::size_t r = r0; r < rows; ++r) to[r] = z[r * N + l];
      }
    };
    if (single) {
      // Pair i takes words 2 i and 2 i + 1 after the uniform's two (if first): two pairs of
      // every particle's words, as the even 32-bit halves of two vectors of lanes, make one
      // vector of floats.
      const hn::Repartition<std::uint32_t, decltype(du)> d32;
      const hn::Repartition<float, decltype(du)> df;
      const hn::Half<decltype(df)> dfh;
      for (std::size_t i0 = 0; i0 < pairs; i0 += kPairsPerPass) {
        const std::size_t m = std::min(kPairsPerPass, pairs - i0);
        const std::size_t w0 = 2 * (i0 + offset),
                          b0 = w0 / 4;  // the pass's first word and its block
        make_blocks(b0, (w0 + 2 * m - 1) / 4 - b0 + 1);
        if (uniform_first && i0 == 0) store_uniform(0);
        auto pair_word = [&](std::size_t k, std::size_t which) {
          const std::size_t w = w0 % 4 + 2 * k + which;
          return hn::BitCast(d32, word(w / 4, w % 4));
        };
        for (std::size_t k = 0; k < m; k += 2) {
          const std::size_t k2 = k + 1 < m ? k + 1 : k;  // an odd last pair goes twice
          const auto w1 = hn::ConcatEven(d32, pair_word(k2, 0), pair_word(k, 0));
          const auto w2 = hn::ConcatEven(d32, pair_word(k2, 1), pair_word(k, 1));
          hn::Vec<decltype(df)> z0, z1;
          BoxMullerPairF(df, w1, w2, z0, z1);
          hn::Store(hn::PromoteTo(d, hn::LowerHalf(dfh, z0)), d, z + (2 * k) * N);
          hn::Store(hn::PromoteTo(d, hn::LowerHalf(dfh, z1)), d, z + (2 * k + 1) * N);
          hn::Store(hn::PromoteTo(d, hn::UpperHalf(dfh, z0)), d, z + (2 * k2) * N);
          hn::Store(hn::PromoteTo(d, hn::UpperHalf(dfh, z1)), d, z + (2 * k2 + 1) * N);
        }
        store_rows(i0, m);
      }
      if (!uniform_first && pairs > 0) {  // words 2 pairs, 2 pairs + 1
        const std::size_t w = 2 * pairs;
        make_blocks(w / 4, 1);
        const std::size_t ww = w % 4;
        hn::Store(UnitFromBits(d, hn::Or(hn::ShiftLeft<32>(word(0, ww)), word(0, ww + 1))), d, u);
        for (std::size_t l = 0; l < lanes; ++l) uniforms[g + l] = u[l];
      }
      continue;
    }
    for (std::size_t i0 = 0; i0 < pairs; i0 += kPairsPerPass) {
      const std::size_t m = std::min(kPairsPerPass, pairs - i0);
      make_blocks(i0, m + offset);
      if (uniform_first && i0 == 0) store_uniform(0);
      for (std::size_t k = 0; k < m; ++k) {
        const std::size_t b1 = k, w1 = 2 * offset;  // u1: block i, words 0, 1 or 2, 3
        const std::size_t b2 = k + offset, w2 = uniform_first ? 0 : 2;  // u2: the next two words
        const auto u1 = UnitFromBits(d, hn::Or(hn::ShiftLeft<32>(word(b1, w1)), word(b1, w1 + 1)));
        const auto u2 = UnitFromBits(d, hn::Or(hn::ShiftLeft<32>(word(b2, w2)), word(b2, w2 + 1)));
        hn::Vec<decltype(d)> z0, z1;
        BoxMullerPair(d, u1, u2, z0, z1);
        hn::Store(z0, d, z + (2 * k) * N);
        hn::Store(z1, d, z + (2 * k + 1) * N);
      }
      store_rows(i0, m);
    }
    if (!uniform_first && pairs > 0) {
      make_blocks(pairs, 1);
      store_uniform(0);
    }
  }
}

}  // namespace logz::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace logz {

HWY_EXPORT(DrawUniformAndNormals);

void draw_uniform_and_normals(const BatchRandom& random, DrawOrder order,
                              std::span<double> uniforms, double* normals, std::size_t n,
                              std::size_t stride, NormalPrecision precision) {
  HWY_DYNAMIC_DISPATCH(DrawUniformAndNormals)
  (random.seed, static_cast<std::uint32_t>(random.purpose), random.step, random.first_particle,
   uniforms.size(), order == DrawOrder::uniform_first, precision == NormalPrecision::single,
   uniforms.data(), normals, n, stride);
}

}  // namespace logz
#endif
