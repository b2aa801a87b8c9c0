// Philox4x32-10 blocks in bulk (philox.hpp), vectorised across blocks: lane l of a vector is
// block draw + l (the counters differ only in their draw word). Dispatched at run time with
// Highway, so a portable build is as fast as one for the build machine; the numbers are the
// scalar blocks' on every target (integer arithmetic only).
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "hwy_dispatch.hpp"  // before Highway: the targets it dispatches to
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "random/philox.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "logz/random/philox.hpp"

HWY_BEFORE_NAMESPACE();
namespace logz::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The high and low 32 bits of each lane's 32 x 32 -> 64-bit product a m (m the same in every
// lane). Highway 1.0.3 multiplies even lanes only, so the odd lanes are shifted down first.
template <class D, class V = hn::Vec<D>>
HWY_INLINE void MulHiLo(D d, V a, V m, V& hi, V& lo) {
  const hn::RepartitionToWide<D> dw;
  const auto even = hn::BitCast(d, hn::MulEven(a, m));
  const auto odd =
      hn::BitCast(d, hn::MulEven(hn::BitCast(d, hn::ShiftRight<32>(hn::BitCast(dw, a))), m));
  hi = hn::OddEven(odd, hn::BitCast(d, hn::ShiftRight<32>(hn::BitCast(dw, even))));
  lo = hn::OddEven(hn::BitCast(d, hn::ShiftLeft<32>(hn::BitCast(dw, odd))), even);
}

// G vectors of blocks side by side (independent chains hide the multiplies' latency): blocks
// draw .. draw + G N - 1, written block after block (four words each) to out.
template <int G, class D>
HWY_INLINE void PhiloxGroups(D d, const PhiloxCounter& counter, const PhiloxKey& key,
                             std::uint32_t* out) {
  const std::size_t N = hn::Lanes(d);
  const auto m0 = hn::Set(d, 0xD2511F53u), m1 = hn::Set(d, 0xCD9E8D57u);
  hn::Vec<D> c0[G], c1[G], c2[G], c3[G];
  for (int g = 0; g < G; ++g) {
    c0[g] = hn::Add(hn::Set(d, static_cast<std::uint32_t>(counter[0] + g * N)), hn::Iota(d, 0));
    c1[g] = hn::Set(d, counter[1]);
    c2[g] = hn::Set(d, counter[2]);
    c3[g] = hn::Set(d, counter[3]);
  }
  std::uint32_t k0 = key[0], k1 = key[1];
  for (int round = 0; round < 10; ++round) {
    const auto key0 = hn::Set(d, k0), key1 = hn::Set(d, k1);
    for (int g = 0; g < G; ++g) {
      // Random123's round: hi/lo of M0 c0 and M1 c2, then c = {hi1^c1^k0, lo1, hi0^c3^k1, lo0}.
      hn::Vec<D> hi0, lo0, hi1, lo1;
      MulHiLo(d, c0[g], m0, hi0, lo0);
      MulHiLo(d, c2[g], m1, hi1, lo1);
      c0[g] = hn::Xor(hn::Xor(hi1, c1[g]), key0);
      c2[g] = hn::Xor(hn::Xor(hi0, c3[g]), key1);
      c1[g] = lo1;
      c3[g] = lo0;
    }
    k0 += 0x9E3779B9u;  // Weyl key schedule
    k1 += 0xBB67AE85u;
  }
  for (int g = 0; g < G; ++g) hn::StoreInterleaved4(c0[g], c1[g], c2[g], c3[g], d, out + 4 * g * N);
}

// Blocks in vectors of d's width: two at a time, then one, then the last few through a buffer.
template <class D>
HWY_INLINE void PhiloxBlocksOf(D d, PhiloxCounter counter, const PhiloxKey& key, std::uint32_t* out,
                               std::size_t num_blocks) {
  const std::size_t N = hn::Lanes(d);
  std::size_t done = 0;
  auto advance = [&](std::size_t blocks) {
    counter[0] += static_cast<std::uint32_t>(blocks);
    done += blocks;
  };
  for (; num_blocks - done >= 2 * N; advance(2 * N))
    PhiloxGroups<2>(d, counter, key, out + 4 * done);
  for (; num_blocks - done >= N; advance(N)) PhiloxGroups<1>(d, counter, key, out + 4 * done);
  if (done == num_blocks) return;
  HWY_ALIGN std::uint32_t last[4 * HWY_MAX_BYTES / sizeof(std::uint32_t)];
  PhiloxGroups<1>(d, counter, key, last);
  std::copy(last, last + 4 * (num_blocks - done), out + 4 * done);
}

void PhiloxBlocks(const PhiloxCounter& counter, const PhiloxKey& key, std::uint32_t* out,
                  std::size_t num_blocks) {
  // Eight blocks (a stream's refill) in vectors of eight lanes where the target's are wider.
  const hn::ScalableTag<std::uint32_t> d;
  const hn::CappedTag<std::uint32_t, 8> d8;
  if (num_blocks < hn::Lanes(d)) {
    PhiloxBlocksOf(d8, counter, key, out, num_blocks);
  } else {
    PhiloxBlocksOf(d, counter, key, out, num_blocks);
  }
}

}  // namespace logz::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace logz {

HWY_EXPORT(PhiloxBlocks);

void philox4x32_10_blocks(const PhiloxCounter& counter, const PhiloxKey& key, std::uint32_t* out,
                          std::size_t num_blocks) {
  HWY_DYNAMIC_DISPATCH(PhiloxBlocks)(counter, key, out, num_blocks);
}

}  // namespace logz
#endif
