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

// Philox4x32-10's key schedule for a key, as vectors made once: each round reads its two keys
// as memory operands of the ternary logic rather than broadcasting them (a shuffle unit's
// operation each, which the rounds' own shuffles need).
template <class D>
class LaneKeys {
 public:
  LaneKeys(D du, const PhiloxKey& key) {
    const std::size_t N = hn::Lanes(du);
    std::uint32_t k0 = key[0], k1 = key[1];
    for (std::size_t round = 0; round < 10; ++round) {
      hn::Store(hn::Set(du, k0), du, keys_ + 2 * round * N);
      hn::Store(hn::Set(du, k1), du, keys_ + (2 * round + 1) * N);
      k0 += 0x9E3779B9u;  // Weyl key schedule
      k1 += 0xBB67AE85u;
    }
  }
  // Round r's key w (0, 1).
  hn::Vec<D> at(D du, int round, int w) const {
    return hn::Load(du, keys_ + static_cast<std::size_t>(2 * round + w) * hn::Lanes(du));
  }

 private:
  HWY_ALIGN std::uint64_t keys_[20 * HWY_MAX_BYTES / sizeof(std::uint64_t)];
};

// The multipliers of Philox4x32's rounds.
constexpr std::uint64_t kPhiloxM0 = 0xD2511F53ull, kPhiloxM1 = 0xCD9E8D57ull;

// A product's high half moved into the low half by swapping the 32-bit halves of each 64-bit
// lane (the high half gets the low one: junk the rounds allow): a shuffle rather than a shift,
// which on AVX-512 would share the multiplies' one port.
template <class D>
HWY_INLINE hn::Vec<D> HighToLow(D du, hn::Vec<D> p) {
  const hn::Repartition<std::uint32_t, D> d32;
  return hn::BitCast(du, hn::Reverse2(d32, hn::BitCast(d32, p)));
}

// What the first two rounds of all blocks of a set of streams share. Block j of a lane's
// stream starts from (j, c1, c2, c3), and only word 0, the same j in every lane, changes from
// block to block: round 0's product of c2, the words it makes, and round 1's product of round
// 0's word 0 (which does not depend on j) are made once here, so that a block's rounds 0 and 1
// take one vector multiply (of round 0's word 2, from j's scalar product) instead of four.
template <class D>
struct LaneRoundsStart {
  hn::Vec<D> b1_k, c3_k, p0_1, hi_p0_1_k;
  LaneRoundsStart(D du, const LaneStreams<D>& s, const LaneKeys<D>& keys) {
    const hn::Repartition<std::uint32_t, D> d32;
    const auto p1_0 = hn::MulEven(hn::BitCast(d32, s.c2), hn::BitCast(d32, hn::Set(du, kPhiloxM1)));
    const auto a_1 = hn::Xor3(HighToLow(du, p1_0), s.c1, keys.at(du, 0, 0));  // round 0's word 0
    b1_k = hn::Xor(p1_0, keys.at(du, 1, 0));  // round 0's word 1, with round 1's key
    c3_k = hn::Xor(s.c3, keys.at(du, 0, 1));
    p0_1 = hn::MulEven(hn::BitCast(d32, a_1), hn::BitCast(d32, hn::Set(du, kPhiloxM0)));
    hi_p0_1_k = hn::Xor(HighToLow(du, p0_1), keys.at(du, 1, 1));
  }
};

// Philox4x32-10 block (j[i], c1, c2, c3) of every lane, K <= 4 blocks at once (independent
// chains hide the multiplies' latency); 32-bit words in the low halves of 64-bit lanes, so
// one MulEven gives a full 32 x 32 -> 64 product. The high halves carry junk between rounds
// (MulEven reads the low halves only), left to `out`: out(i, w0, w1, w2, w3) with block i's
// words in the low halves. (The state stays in local arrays: passed out by reference, GCC kept
// it in memory in some units.)
template <int K, class D, class Out>
HWY_INLINE void PhiloxLaneRounds(D du, const std::uint64_t* j, const LaneRoundsStart<D>& start,
                                 const LaneKeys<D>& keys, Out&& out) {
  const hn::Repartition<std::uint32_t, D> d32;
  const auto m0 = hn::BitCast(d32, hn::Set(du, kPhiloxM0)),
             m1 = hn::BitCast(d32, hn::Set(du, kPhiloxM1));
  hn::Vec<D> a[K], b[K], c[K], e[K];  // words 0..3 of the K blocks
  for (int i = 0; i < K; ++i) {
    // Rounds 0 and 1 from LaneRoundsStart: round 0's products are j M0 (a scalar: j is every
    // lane's) and c2 M1 (made once); round 1's, (round 0's word 0) M0 (made once) and that of
    // round 0's word 2, hi(j M0) ^ c3 ^ k1.
    const std::uint64_t p0_0 = (j[i] & 0xFFFFFFFFull) * kPhiloxM0;
    const auto c_1 = hn::Xor(hn::Set(du, p0_0 >> 32), start.c3_k);
    const auto p1_1 = hn::MulEven(hn::BitCast(d32, c_1), m1);
    a[i] = hn::Xor(HighToLow(du, p1_1), start.b1_k);
    b[i] = p1_1;
    c[i] = hn::Xor(start.hi_p0_1_k, hn::Set(du, p0_0));
    e[i] = start.p0_1;
  }
  for (int round = 2; round < 10; ++round) {
    const auto key0 = keys.at(du, round, 0), key1 = keys.at(du, round, 1);
    for (int i = 0; i < K; ++i) {
      // Random123's round: hi/lo of M0 c0 and M1 c2, then c = {hi1^c1^k0, lo1, hi0^c3^k1, lo0}.
      const auto p0 = hn::MulEven(hn::BitCast(d32, a[i]), m0);
      const auto p1 = hn::MulEven(hn::BitCast(d32, c[i]), m1);
      a[i] = hn::Xor3(HighToLow(du, p1), b[i], key0);
      c[i] = hn::Xor3(HighToLow(du, p0), e[i], key1);
      b[i] = p1;
      e[i] = p0;
    }
  }
  for (int i = 0; i < K; ++i) out(static_cast<std::size_t>(i), a[i], b[i], c[i], e[i]);
}

// Blocks j[i], K <= 4 (PhiloxLaneRounds): word w of block i to out[(4 i + w) * N], each in the
// low half of its 64-bit lane.
template <int K, class D>
HWY_INLINE void PhiloxLaneBlocksAt(D du, const std::uint64_t* j, const LaneRoundsStart<D>& start,
                                   const LaneKeys<D>& keys, std::uint64_t* out) {
  const std::size_t N = hn::Lanes(du);
  const auto mask = hn::Set(du, 0xFFFFFFFFull);
  PhiloxLaneRounds<K>(
      du, j, start, keys,
      [&](std::size_t i, hn::Vec<D> w0, hn::Vec<D> w1, hn::Vec<D> w2, hn::Vec<D> w3) {
        hn::Store(hn::And(w0, mask), du, out + (4 * i + 0) * N);
        hn::Store(hn::And(w1, mask), du, out + (4 * i + 1) * N);
        hn::Store(hn::And(w2, mask), du, out + (4 * i + 2) * N);
        hn::Store(hn::And(w3, mask), du, out + (4 * i + 3) * N);
      });
}

// Blocks j[i], K <= 4, as 64-bit words: word 2 i + x of every lane (block i's 32-bit words
// 2 x and 2 x + 1 as hi << 32 | lo) to out[(2 i + x) * N]. The high word is moved up by the
// same swap of halves, and the low one kept by a select: no shifts, no masks.
template <int K, class D>
HWY_INLINE void PhiloxLaneWordsAt(D du, const std::uint64_t* j, const LaneRoundsStart<D>& start,
                                  const LaneKeys<D>& keys, std::uint64_t* out) {
  const std::size_t N = hn::Lanes(du);
  const auto high = hn::Set(du, 0xFFFFFFFF00000000ull);
  auto word = [&](hn::Vec<D> hi, hn::Vec<D> lo) {
    return hn::IfVecThenElse(high, HighToLow(du, hi), lo);
  };
  PhiloxLaneRounds<K>(
      du, j, start, keys,
      [&](std::size_t i, hn::Vec<D> w0, hn::Vec<D> w1, hn::Vec<D> w2, hn::Vec<D> w3) {
        hn::Store(word(w0, w1), du, out + (2 * i) * N);
        hn::Store(word(w2, w3), du, out + (2 * i + 1) * N);
      });
}

// The same for K consecutive blocks j0, j0 + 1, ...
template <int K, class D>
HWY_INLINE void PhiloxLaneBlocks(D du, std::uint64_t j0, const LaneRoundsStart<D>& start,
                                 const LaneKeys<D>& keys, std::uint64_t* out) {
  std::uint64_t j[K];
  for (int i = 0; i < K; ++i) j[i] = j0 + static_cast<std::uint64_t>(i);
  PhiloxLaneBlocksAt<K>(du, j, start, keys, out);
}

}  // namespace logz::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // LOGZ_RANDOM_PHILOX_LANES_INL_H_
