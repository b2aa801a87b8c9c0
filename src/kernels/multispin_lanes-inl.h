// What the multi-spin sweeps across groups share, per Highway target (included inside
// HWY_NAMESPACE by multispin_ising_sweeps.cpp and multispin_potts_sweeps.cpp): a vector holds
// the same word of Lanes(d) groups of 64 particles, one group per lane. The groups' words
// interleaved for the sweep and written back, their random words made in lanes (each group's
// own stream, so the bits do not depend on which groups share a vector), the lanes a
// comparison left undecided visited group by group, and bonds counted in bit-sliced counters.
// Per-target include guard, Highway's pattern.
#if defined(LOGZ_KERNELS_MULTISPIN_LANES_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef LOGZ_KERNELS_MULTISPIN_LANES_INL_H_
#undef LOGZ_KERNELS_MULTISPIN_LANES_INL_H_
#else
#define LOGZ_KERNELS_MULTISPIN_LANES_INL_H_
#endif

#include <hwy/aligned_allocator.h>
#include <hwy/highway.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/multispin_bits.hpp"
#include "logz/random/philox.hpp"
#include "random/philox_lanes-inl.h"

HWY_BEFORE_NAMESPACE();
namespace logz::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Groups g0 .. g0 + Lanes(d) - 1 of a batch (group-major: group g's `per_group` words from
// g * per_group), interleaved: word i of lane l at at(i)[l]. Lanes past the batch's last group
// are padding (zeros), swept and dropped.
template <class D>
class GroupLanes {
 public:
  GroupLanes(D d, multispin::Word* words, std::size_t per_group, std::size_t num_particles,
             std::size_t g0)
      : d_(d),
        n_(hn::Lanes(d)),
        words_(words),
        per_group_(per_group),
        num_particles_(num_particles),
        g0_(g0),
        lanes_(std::min(n_, (num_particles + 63) / 64 - g0)),
        w_(hwy::AllocateAligned<multispin::Word>(per_group * n_)),
        masks_(hwy::AllocateAligned<multispin::Word>(n_)) {
    for (std::size_t l = 0; l < n_; ++l) {
      const std::size_t used = l < lanes_ ? particles_of(l) : 0;
      masks_[l] = used == 64 ? multispin::kAll : (multispin::Word{1} << used) - 1;
      for (std::size_t i = 0; i < per_group; ++i)
        w_[i * n_ + l] = l < lanes_ ? words[(g0 + l) * per_group + i] : 0;
    }
  }
  // The groups' words back into the batch.
  void write_back() const {
    for (std::size_t l = 0; l < lanes_; ++l)
      for (std::size_t i = 0; i < per_group_; ++i)
        words_[(g0_ + l) * per_group_ + i] = w_[i * n_ + l];
  }

  std::size_t lanes() const { return lanes_; }  // groups of the batch in the vector
  std::size_t first_group() const { return g0_; }
  std::size_t particles_of(std::size_t l) const {
    return std::min<std::size_t>(64, num_particles_ - 64 * (g0_ + l));
  }
  multispin::Word* at(std::size_t i) { return w_.get() + i * n_; }
  // Each lane's particles of the batch as a mask.
  hn::Vec<D> particle_mask() const { return hn::Load(d_, masks_.get()); }

 private:
  D d_;
  std::size_t n_;
  multispin::Word* words_;
  std::size_t per_group_, num_particles_, g0_, lanes_;
  hwy::AlignedFreeUniquePtr<multispin::Word[]> w_, masks_;
};

// Words 2 i and 2 i + 1 of each lane's stream (block j[i]'s four 32-bit words, hi << 32 | lo),
// i < k <= 4, to out[(2 i + x) N]: PhiloxLaneWordsAt for a k known at run time.
template <class D>
HWY_INLINE void LaneWordsAt(D d, std::size_t k, const std::uint64_t* j, const LaneRoundsStart<D>& s,
                            const LaneKeys<D>& key, multispin::Word* out) {
  if (k >= 4)
    PhiloxLaneWordsAt<4>(d, j, s, key, out);
  else if (k == 3)
    PhiloxLaneWordsAt<3>(d, j, s, key, out);
  else if (k == 2)
    PhiloxLaneWordsAt<2>(d, j, s, key, out);
  else
    PhiloxLaneWordsAt<1>(d, j, s, key, out);
}

// The words of random.stream(64 g + offset), in order, for the groups of a GroupLanes: next(m)
// gives the next m words of every lane (word j of lane l at [j N + l]). Made in lanes, four
// Philox blocks at a time; in vectors of one or two lanes each stream's own (vectorised across
// its blocks) is faster, and gives the same words.
template <class D>
class GroupWords {
 public:
  GroupWords(D d, const BatchRandom& random, const GroupLanes<D>& groups, std::size_t offset,
             std::size_t max_words)
      : d_(d),
        n_(hn::Lanes(d)),
        lanes_(groups.lanes()),
        key_(d, PhiloxKey{static_cast<std::uint32_t>(random.seed),
                          static_cast<std::uint32_t>(random.seed >> 32)}),
        start_(d,
               LaneStreams<D>(
                   d, random.step, static_cast<std::uint32_t>(random.purpose),
                   hn::Add(hn::ShiftLeft<6>(hn::Iota(d, 0)),
                           hn::Set(d, random.first_particle + 64 * groups.first_group() + offset))),
               key_),
        stage_(hwy::AllocateAligned<multispin::Word>((max_words + 10) * n_)) {
    if (narrow())
      for (std::size_t l = 0; l < lanes_; ++l)
        own_.push_back(random.stream(64 * (groups.first_group() + l) + offset));
    bits_.resize(narrow() ? 2 * max_words : 0);
  }

  const multispin::Word* next(std::size_t count) {
    const multispin::Word* out = stage_.get();
    if (narrow()) {
      for (std::size_t l = 0; l < lanes_; ++l) {
        own_[l].fill_u32(bits_.data(), 2 * count);
        for (std::size_t q = 0; q < count; ++q)
          stage_[q * n_ + l] = (multispin::Word{bits_[2 * q]} << 32) | bits_[2 * q + 1];
      }
    } else {
      // Whole blocks of two words from the one holding word pos_.
      const std::uint64_t first = pos_ / 2;
      const std::size_t skip = pos_ % 2, num_blocks = (skip + count + 1) / 2;
      for (std::size_t i = 0; i < num_blocks; i += 4) {
        const std::uint64_t j[4] = {first + i, first + i + 1, first + i + 2, first + i + 3};
        PhiloxLaneWordsAt<4>(d_, j, start_, key_, stage_.get() + 2 * i * n_);
      }
      out += skip * n_;
    }
    pos_ += count;
    return out;
  }

 private:
  bool narrow() const { return n_ <= 2; }
  D d_;
  std::size_t n_, lanes_;
  LaneKeys<D> key_;
  LaneRoundsStart<D> start_;
  hwy::AlignedFreeUniquePtr<multispin::Word[]> stage_;
  std::vector<RandomStream> own_;
  std::vector<std::uint32_t> bits_;
  std::uint64_t pos_ = 0;  // words made so far
};

// The first kFixedBits bits of every lane's uniform (bit b in the words at r + b N) against
// the bits t(b) of its threshold, most significant first, computed from the last bit up:
// `below` holds the lanes whose bits read below the threshold's, `equal` those equal to them
// (undecided: their comparison goes on with further words).
template <class D, class ThresholdBits>
HWY_INLINE void CompareFixedBits(D d, const multispin::Word* r, ThresholdBits&& t,
                                 hn::Vec<D>& below, hn::Vec<D>& equal) {
  const std::size_t N = hn::Lanes(d);
  below = hn::Zero(d);
  equal = hn::Not(below);
  for (int b = multispin::kFixedBits - 1; b >= 0; --b) {
    const auto tb = t(b), rb = hn::Load(d, r + static_cast<std::size_t>(b) * N);
    const auto same = hn::Not(hn::Xor(tb, rb));
    below = hn::Or(hn::AndNot(rb, tb), hn::And(same, below));
    equal = hn::And(equal, same);
  }
}

// Bit b of every lane's threshold: the OR of the masks of rc's classes that have it set,
// mask(k) the lanes of class k (rc's order).
template <class D, class Mask>
HWY_INLINE hn::Vec<D> ThresholdBit(D d, const multispin::RejectableClasses& rc, int b,
                                   Mask&& mask) {
  auto t = hn::Zero(d);
  for (std::uint32_t m = rc.with_bit[b]; m != 0; m &= m - 1)
    t = hn::Or(t, mask(std::countr_zero(m)));
  return t;
}

// One more bit of a comparison of the `pending` lanes' uniforms with their thresholds: random
// bit rb against threshold bit t; below: accepted, equal: still pending.
template <class V>
HWY_INLINE void CompareNextBit(V rb, V t, V& accept, V& pending) {
  accept = hn::Or(accept, hn::And(pending, hn::AndNot(rb, t)));
  pending = hn::AndNot(hn::Xor(rb, t), pending);
}

// f(l) for each lane l < lanes whose word in `v` is not zero.
template <class D, class F>
HWY_INLINE void ForEachNonZeroLane(D d, hn::Vec<D> v, std::size_t lanes, F&& f) {
  std::uint8_t bits[HWY_MAX_BYTES / 8 / 8 + 8] = {};
  hn::StoreMaskBits(d, hn::Ne(v, hn::Zero(d)), bits);
  for (std::size_t byte = 0; 8 * byte < lanes; ++byte) {
    unsigned set = bits[byte];
    if (lanes < 8 * (byte + 1)) set &= (1u << (lanes - 8 * byte)) - 1;
    for (; set != 0; set &= set - 1) f(8 * byte + static_cast<std::size_t>(std::countr_zero(set)));
  }
}

// Per-lane counts of up to 2^planes - 1 in bit-sliced counters: plane k holds bit k of each
// lane's count, and adding a mask of lanes ripples its carries through all planes (no
// data-dependent exit).
template <class D>
class BitSlicedCounter {
 public:
  BitSlicedCounter(D d, int planes) : d_(d), planes_(planes) {
    for (int k = 0; k < planes_; ++k) plane_[k] = hn::Zero(d);
  }
  void add(hn::Vec<D> m) {
    for (int k = 0; k < planes_; ++k) {
      const auto carry = hn::And(plane_[k], m);
      plane_[k] = hn::Xor(plane_[k], m);
      m = carry;
    }
  }
  // Each particle's count, particle 64 (g0 + l) + b at out[64 (g0 + l) + b].
  void store(const GroupLanes<D>& groups, std::int64_t* out) const {
    const std::size_t N = hn::Lanes(d_);
    auto planes = hwy::AllocateAligned<multispin::Word>(static_cast<std::size_t>(planes_) * N);
    for (int k = 0; k < planes_; ++k) hn::Store(plane_[k], d_, planes.get() + k * N);
    for (std::size_t l = 0; l < groups.lanes(); ++l)
      for (std::size_t b = 0; b < groups.particles_of(l); ++b) {
        std::int64_t count = 0;
        for (int k = 0; k < planes_; ++k)
          count |= static_cast<std::int64_t>((planes[k * N + l] >> b) & 1) << k;
        out[64 * (groups.first_group() + l) + b] = count;
      }
  }

 private:
  D d_;
  int planes_;
  hn::Vec<D> plane_[64];
};

// The total of the lanes' counts in `v`.
template <class D>
std::uint64_t SumOfLanes64(D d, hn::Vec<D> v) {
  HWY_ALIGN std::uint64_t lanes[HWY_MAX_BYTES / 8];
  hn::Store(v, d, lanes);
  std::uint64_t sum = 0;
  for (std::size_t l = 0; l < hn::Lanes(d); ++l) sum += lanes[l];
  return sum;
}

// Sweeps over groups in vectors of Lanes(d): sweep(tag, g0) for each vector's first group,
// the last few groups in the narrowest vector that holds them, not a full one of padding.
template <class D, class Sweep>
std::uint64_t OverGroupVectors(D d, std::size_t groups, Sweep&& sweep) {
  std::uint64_t total = 0;
  std::size_t g0 = 0;
  for (; g0 + hn::Lanes(d) <= groups; g0 += hn::Lanes(d)) total += sweep(d, g0);
  const std::size_t rest = groups - g0;
  if (rest == 1)
    total += sweep(hn::CappedTag<std::uint64_t, 1>(), g0);
  else if (rest == 2)
    total += sweep(hn::CappedTag<std::uint64_t, 2>(), g0);
  else if (rest > 2 && rest <= 4)
    total += sweep(hn::CappedTag<std::uint64_t, 4>(), g0);
  else if (rest > 4)
    total += sweep(d, g0);
  return total;
}

}  // namespace logz::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // LOGZ_KERNELS_MULTISPIN_LANES_INL_H_
