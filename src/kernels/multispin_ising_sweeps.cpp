// Multi-spin Ising sweeps across groups (multispin_ising_sweeps.hpp), per Highway target. The
// groups of one vector are interleaved for the sweep (site i of lane l at w[i N + l]) and
// written back after it; their random words are made in lanes, one group per lane.
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "hwy_dispatch.hpp"  // before Highway: the targets it dispatches to
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/multispin_ising_sweeps.cpp"
#include <hwy/aligned_allocator.h>
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/multispin_ising_sweeps.hpp"
#include "random/philox_lanes-inl.h"

HWY_BEFORE_NAMESPACE();
namespace logz::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using multispin::IsingSweeps, multispin::kAll, multispin::kFixedRounds, multispin::kThresholdBits,
    multispin::kTailBlocks, multispin::Visit, multispin::Word;

constexpr std::size_t kChunk = 16;  // site visits whose fixed words are made at once
constexpr int kFixedBlocks = kFixedRounds / 2;

// The counter words c1..c3 of random.stream(particle) in every lane (RandomStream's layout).
template <class D>
struct LaneStreams {
  hn::Vec<D> c1, c2, c3;
  LaneStreams(D d, const BatchRandom& random, hn::Vec<D> particle) {
    const auto low = hn::Set(d, 0xFFFFFFFFull);
    c1 = hn::Set(d, random.step);
    c2 = hn::And(particle, low);
    c3 = hn::And(hn::Xor(hn::Set(d, static_cast<std::uint32_t>(random.purpose)),
                         hn::ShiftLeft<8>(hn::ShiftRight<32>(particle))),
                 low);
  }
};

// Words 2 i and 2 i + 1 of each lane's stream (block i's four 32-bit words, hi << 32 | lo),
// i < K, from the blocks PhiloxLaneBlocks<K> wrote at `blocks`, to out[(2 i + x) N].
template <class D>
HWY_INLINE void WordsFromBlocks(D d, int k, const std::uint64_t* blocks, Word* out) {
  const std::size_t N = hn::Lanes(d);
  for (int i = 0; i < k; ++i) {
    auto word = [&](int x) { return hn::Load(d, blocks + (4 * i + x) * N); };
    hn::Store(hn::Or(hn::ShiftLeft<32>(word(0)), word(1)), d, out + (2 * i) * N);
    hn::Store(hn::Or(hn::ShiftLeft<32>(word(2)), word(3)), d, out + (2 * i + 1) * N);
  }
}

// Every lane's anti-aligned bonds (right and down of each site) in bit-sliced counters, plane k
// holding bit k of each lane's count: adding a mask of lanes ripples its carries through all
// planes (no data-dependent exit). Writes the first `particles` lanes' counts to `out`.
template <class D>
void CountAntiAligned(D d, const IsingSweeps& job, const Word* w, std::size_t lanes,
                      std::int64_t* out, std::size_t particles) {
  const std::size_t N = hn::Lanes(d), n = job.num_sites;
  const int num_planes = std::bit_width(2 * n);  // counts up to the 2 n bonds
  auto planes = hwy::AllocateAligned<Word>(static_cast<std::size_t>(num_planes) * N);
  hn::Vec<D> plane[64];
  for (int k = 0; k < num_planes; ++k) plane[k] = hn::Zero(d);
  auto add = [&](hn::Vec<D> m) {
    for (int k = 0; k < num_planes; ++k) {
      const auto carry = hn::And(plane[k], m);
      plane[k] = hn::Xor(plane[k], m);
      m = carry;
    }
  };
  for (std::size_t i = 0; i < n; ++i) {
    const Visit& v = job.visits[i];
    const auto s = hn::Load(d, w + static_cast<std::size_t>(v.site) * N);
    add(hn::Xor(s, hn::Load(d, w + static_cast<std::size_t>(v.nb[0]) * N)));
    add(hn::Xor(s, hn::Load(d, w + static_cast<std::size_t>(v.nb[1]) * N)));
  }
  for (int k = 0; k < num_planes; ++k) hn::Store(plane[k], d, planes.get() + k * N);
  for (std::size_t l = 0; l < lanes; ++l)
    for (std::size_t b = 0; b < 64 && 64 * l + b < particles; ++b) {
      std::int64_t count = 0;
      for (int k = 0; k < num_planes; ++k)
        count |= static_cast<std::int64_t>((planes[k * N + l] >> b) & 1) << k;
      out[64 * l + b] = count;
    }
}

// The groups g0 .. g0 + Lanes(d) - 1 (those at or past num_particles / 64 are padding, swept
// and dropped) through all sweeps; returns how many of their lanes changed.
template <class D>
std::uint64_t SweepGroups(D d, const IsingSweeps& job, Word* words, std::size_t num_particles,
                          std::size_t g0, std::int64_t* anti_aligned) {
  const std::size_t N = hn::Lanes(d), n = job.num_sites;
  const std::size_t lanes = std::min(N, (num_particles + 63) / 64 - g0);
  const PhiloxKey key{static_cast<std::uint32_t>(job.random.seed),
                      static_cast<std::uint32_t>(job.random.seed >> 32)};
  auto w = hwy::AllocateAligned<Word>(n * N);
  auto fixed = hwy::AllocateAligned<Word>(kChunk * kFixedRounds * N);  // [visit][round][lane]
  auto blocks = hwy::AllocateAligned<std::uint64_t>(4 * kFixedBlocks * N);
  auto first_tail = hwy::AllocateAligned<Word>((kChunk + 3) / 4 * 4 * 2 * N);  // [visit][2][lane]
  auto tail = hwy::AllocateAligned<Word>(2 * N);
  auto scratch = hwy::AllocateAligned<Word>(N);
  for (std::size_t l = 0; l < N; ++l) {
    const std::size_t used =
        l < lanes ? std::min<std::size_t>(64, num_particles - 64 * (g0 + l)) : 0;
    scratch[l] = used == 64 ? kAll : (Word{1} << used) - 1;
    for (std::size_t i = 0; i < n; ++i) w[i * N + l] = l < lanes ? words[(g0 + l) * n + i] : 0;
  }
  const auto lane_mask = hn::Load(d, scratch.get());
  const auto first =
      hn::Add(hn::ShiftLeft<6>(hn::Iota(d, 0)), hn::Set(d, job.random.first_particle + 64 * g0));
  const LaneStreams<D> fixed_stream(d, job.random, first),
      tail_stream(d, job.random, hn::Add(first, hn::Set(d, 1)));
  // In vectors of one or two lanes Philox made in lanes is slower than each stream's own
  // (vectorised across its blocks): the same words, made that way.
  const bool narrow = N <= 2;
  std::vector<RandomStream> fixed_streams, tail_streams;
  std::vector<std::uint32_t> bits(narrow ? 2 * kFixedRounds * kChunk : 0);
  for (std::size_t l = 0; narrow && l < lanes; ++l) {
    fixed_streams.push_back(job.random.stream(64 * (g0 + l)));
    tail_streams.push_back(job.random.stream(64 * (g0 + l) + 1));
  }
  const auto invert = hn::Set(d, job.invert), self_left = hn::Set(d, job.self_left),
             self_up = hn::Set(d, job.self_up), hard_active = hn::Set(d, job.hard->active),
             soft_active = hn::Set(d, job.soft->active), zero = hn::Zero(d);
  // No lane can be rejected (every threshold at or past 2^32, as at beta = 0): no words.
  const bool draws = (job.hard->active | job.soft->active) != 0;
  auto threshold_bits = [&](hn::Vec<D> hard, hn::Vec<D> soft, int b) {
    return hn::Or(hn::And(hard, hn::Set(d, job.hard->bits[b])),
                  hn::And(soft, hn::Set(d, job.soft->bits[b])));
  };
  auto count = zero;
  std::uint64_t visit = 0;  // the step's site visits so far
  for (std::size_t sweep = 0; sweep < job.sweeps; ++sweep) {
    if (sweep > 0) job.stop.throw_if_requested();
    for (std::size_t j0 = 0; j0 < n; j0 += kChunk) {
      const std::size_t m = std::min(kChunk, n - j0);
      if (draws && narrow) {
        // Lane by lane from the streams themselves (Philox vectorised across blocks), then
        // into the layout below.
        for (std::size_t l = 0; l < lanes; ++l) {
          fixed_streams[l].fill_u32(bits.data(), 2 * kFixedRounds * m);
          for (std::size_t q = 0; q < kFixedRounds * m; ++q)
            fixed[q * N + l] = (Word{bits[2 * q]} << 32) | bits[2 * q + 1];
          tail_streams[l].fill_u32(bits.data(), 4 * m);
          for (std::size_t q = 0; q < 2 * m; ++q)
            first_tail[q * N + l] = (Word{bits[2 * q]} << 32) | bits[2 * q + 1];
        }
      }
      for (std::size_t k = 0; draws && !narrow && k < m; ++k) {  // visit q: blocks 4q .. 4q + 3
        PhiloxLaneBlocks<kFixedBlocks>(d, kFixedBlocks * (visit + k), fixed_stream.c1,
                                       fixed_stream.c2, fixed_stream.c3, key, blocks.get());
        WordsFromBlocks(d, kFixedBlocks, blocks.get(), fixed.get() + k * kFixedRounds * N);
      }
      // The tails' first blocks (block q of random.stream(64 g + 1) for visit q), four visits
      // at a time: most visits need one in some lane.
      for (std::size_t k = 0; draws && !narrow && k < m; k += 4) {
        PhiloxLaneBlocks<4>(d, visit + k, tail_stream.c1, tail_stream.c2, tail_stream.c3, key,
                            blocks.get());
        WordsFromBlocks(d, 4, blocks.get(), first_tail.get() + 2 * k * N);
      }
      for (std::size_t k = 0; k < m; ++k, ++visit) {
        const std::size_t j = j0 + k;
        const Visit& v = job.visits[job.reversed ? n - 1 - j : j];
        Word* site = w.get() + static_cast<std::size_t>(v.site) * N;
        auto neighbour = [&](int x) { return hn::Load(d, w.get() + v.nb[x] * N); };
        const auto s = hn::Load(d, site);
        // v_x: lanes where neighbour x is anti-aligned (aligned when K < 0).
        const auto v0 = hn::Xor3(s, neighbour(0), invert);
        const auto v1 = hn::Xor3(s, neighbour(1), invert);
        const auto v2 = hn::Xor(hn::Xor3(s, neighbour(2), invert), self_left);
        const auto v3 = hn::Xor(hn::Xor3(s, neighbour(3), invert), self_up);
        const auto x01 = hn::Xor(v0, v1), x23 = hn::Xor(v2, v3);
        const auto two_or_more = hn::Or3(hn::And(v0, v1), hn::And(v2, v3), hn::And(x01, x23));
        const auto hard = hn::AndNot(hn::Or(hn::Or(v0, v1), hn::Or(v2, v3)), hard_active);
        const auto soft = hn::And(hn::AndNot(two_or_more, hn::Xor(x01, x23)), soft_active);
        const auto candidates = hn::Or(hard, soft);
        auto accept = zero;
        if (draws) {
          // The fixed rounds from the last bit up: `below` is "the lane's bits so far read
          // below its threshold's", `equal` "equal so far".
          const Word* r = fixed.get() + k * kFixedRounds * N;
          auto below = zero, equal = hn::Not(zero);
          for (int b = kFixedRounds - 1; b >= 0; --b) {
            const auto rb = hn::Load(d, r + b * N);
            const auto same = hn::Not(hn::Xor(threshold_bits(hard, soft, b), rb));
            below = hn::Or(hn::AndNot(rb, threshold_bits(hard, soft, b)), hn::And(same, below));
            equal = hn::And(equal, same);
          }
          accept = hn::And(candidates, below);
          // Lanes still undecided go on from the threshold's next bit with the words of
          // blocks q, kMaxVisits + q, 2 kMaxVisits + q .. of random.stream(64 g + 1), two words
          // a block, as long as any lane of any group needs them (a group's words are the
          // same whichever others share its vector); lanes equal over all 32 bits: rejected.
          auto pending = hn::And(candidates, equal);
          for (int b = kFixedRounds, i = 0;
               b < kThresholdBits && !hn::AllTrue(d, hn::Eq(pending, zero)); ++i) {
            const Word* words_i = first_tail.get() + 2 * k * N;
            if (i > 0) {
              PhiloxLaneBlocks<1>(d, static_cast<std::uint64_t>(i) * multispin::kMaxVisits + visit,
                                  tail_stream.c1, tail_stream.c2, tail_stream.c3, key,
                                  blocks.get());
              WordsFromBlocks(d, 1, blocks.get(), tail.get());
              words_i = tail.get();
            }
            for (int x = 0; x < 2; ++x, ++b) {
              const auto rb = hn::Load(d, words_i + x * N), t = threshold_bits(hard, soft, b);
              accept = hn::Or(accept, hn::And(pending, hn::AndNot(rb, t)));
              pending = hn::AndNot(hn::Xor(rb, t), pending);
            }
          }
        }
        const auto flip = hn::Or(hn::Not(candidates), accept);
        hn::Store(hn::Xor(s, flip), d, site);
        count = hn::Add(count, hn::PopulationCount(hn::And(flip, lane_mask)));
      }
    }
  }
  for (std::size_t l = 0; l < lanes; ++l)
    for (std::size_t i = 0; i < n; ++i) words[(g0 + l) * n + i] = w[i * N + l];
  CountAntiAligned(d, job, w.get(), lanes, anti_aligned + 64 * g0,
                   std::min<std::size_t>(num_particles - 64 * g0, 64 * lanes));
  hn::Store(count, d, scratch.get());
  std::uint64_t changed = 0;
  for (std::size_t l = 0; l < N; ++l) changed += scratch[l];
  return changed;
}

std::uint64_t IsingSweepsOf(const IsingSweeps& job, Word* words, std::size_t num_particles,
                            std::int64_t* anti_aligned) {
  const hn::ScalableTag<std::uint64_t> d;
  const std::size_t groups = (num_particles + 63) / 64;
  std::uint64_t changed = 0;
  std::size_t g0 = 0;
  for (; g0 + hn::Lanes(d) <= groups; g0 += hn::Lanes(d))
    changed += SweepGroups(d, job, words, num_particles, g0, anti_aligned);
  // The last few groups in the narrowest vector that holds them, not a full one of padding.
  const std::size_t rest = groups - g0;
  if (rest == 1)
    changed +=
        SweepGroups(hn::CappedTag<std::uint64_t, 1>(), job, words, num_particles, g0, anti_aligned);
  else if (rest == 2)
    changed +=
        SweepGroups(hn::CappedTag<std::uint64_t, 2>(), job, words, num_particles, g0, anti_aligned);
  else if (rest > 2 && rest <= 4)
    changed +=
        SweepGroups(hn::CappedTag<std::uint64_t, 4>(), job, words, num_particles, g0, anti_aligned);
  else if (rest > 4)
    changed += SweepGroups(d, job, words, num_particles, g0, anti_aligned);
  return changed;
}

}  // namespace logz::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace logz {

HWY_EXPORT(IsingSweepsOf);

std::uint64_t multispin::ising_sweeps(const IsingSweeps& job, Word* words,
                                      std::size_t num_particles, std::int64_t* anti_aligned) {
  return HWY_DYNAMIC_DISPATCH(IsingSweepsOf)(job, words, num_particles, anti_aligned);
}

}  // namespace logz
#endif
