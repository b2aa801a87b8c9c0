// Philox4x32-10 made in lanes, per Highway target: lane l of a vector is one stream (its own
// counter words c1..c3), so block j of several streams comes out at once. Included by the
// sources that draw for many particles or groups side by side (particle_draws.cpp,
// kernels/multispin_ising_sweeps.cpp) inside their HWY_NAMESPACE; the words are bitwise those of
// RandomStream. Per-target include guard, Highway's pattern.
#if defined(LOGZ_RANDOM_PHILOX_LANES_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef LOGZ_RANDOM_PHILOX_LANES_INL_H_
#undef LOGZ_RANDOM_PHILOX_LANES_INL_H_
#else
#define LOGZ_RANDOM_PHILOX_LANES_INL_H_
#endif

#include <hwy/highway.h>

#include <cstdint>

#include "logz/random/philox.hpp"

HWY_BEFORE_NAMESPACE();
namespace logz::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The counter words c1..c3 of RandomStream(seed, particle, purpose, step) in every lane (its
// layout: c1 = step, c2 = the particle's low word, c3 = purpose ^ its high word << 8).
template <class D>
struct LaneStreams {
  hn::Vec<D> c1, c2, c3;
  LaneStreams(D d, std::uint32_t step, std::uint32_t purpose, hn::Vec<D> particle) {
    const auto low = hn::Set(d, 0xFFFFFFFFull);
    c1 = hn::Set(d, step);
    c2 = hn::And(particle, low);
    c3 = hn::And(hn::Xor(hn::Set(d, purpose), hn::ShiftLeft<8>(hn::ShiftRight<32>(particle))), low);
  }
};

// Philox4x32-10 block (j, c1, c2, c3) of every lane, K <= 4 consecutive j at once (independent
// chains hide the multiplies' latency); 32-bit words in the low halves of 64-bit lanes, so
// one MulEven gives a full 32 x 32 -> 64 product. The high halves carry junk between rounds
// (MulEven reads the low halves only), cleared once at the end. Writes words w of block
// j0 + i to out[(4 i + w) * N].
template <int K, class D>
HWY_INLINE void PhiloxLaneBlocks(D du, std::uint64_t j0, hn::Vec<D> c1, hn::Vec<D> c2,
                                 hn::Vec<D> c3, const PhiloxKey& key, std::uint64_t* out) {
  const std::size_t N = hn::Lanes(du);
  const hn::Repartition<std::uint32_t, D> d32;
  const auto mask = hn::Set(du, 0xFFFFFFFFull);
  const auto m0 = hn::BitCast(d32, hn::Set(du, 0xD2511F53ull)),
             m1 = hn::BitCast(d32, hn::Set(du, 0xCD9E8D57ull));
  hn::Vec<D> a[K], b[K], c[K], e[K];  // words 0..3 of the K blocks
  for (int i = 0; i < K; ++i) {
    a[i] = hn::Set(du, (j0 + static_cast<std::uint64_t>(i)) & 0xFFFFFFFFull);
    b[i] = c1, c[i] = c2, e[i] = c3;
  }
  std::uint32_t k0 = key[0], k1 = key[1];
  for (int round = 0; round < 10; ++round) {
    const auto key0 = hn::Set(du, k0), key1 = hn::Set(du, k1);
    for (int i = 0; i < K; ++i) {
      // Random123's round: hi/lo of M0 c0 and M1 c2, then c = {hi1^c1^k0, lo1, hi0^c3^k1, lo0}.
      const auto p0 = hn::MulEven(hn::BitCast(d32, a[i]), m0);
      const auto p1 = hn::MulEven(hn::BitCast(d32, c[i]), m1);
      a[i] = hn::Xor3(hn::ShiftRight<32>(p1), b[i], key0);
      c[i] = hn::Xor3(hn::ShiftRight<32>(p0), e[i], key1);
      b[i] = p1;
      e[i] = p0;
    }
    k0 += 0x9E3779B9u;  // Weyl key schedule
    k1 += 0xBB67AE85u;
  }
  for (int i = 0; i < K; ++i) {
    hn::Store(hn::And(a[i], mask), du, out + (4 * i + 0) * N);
    hn::Store(hn::And(b[i], mask), du, out + (4 * i + 1) * N);
    hn::Store(hn::And(c[i], mask), du, out + (4 * i + 2) * N);
    hn::Store(hn::And(e[i], mask), du, out + (4 * i + 3) * N);
  }
}

}  // namespace logz::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // LOGZ_RANDOM_PHILOX_LANES_INL_H_
