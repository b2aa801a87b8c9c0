// Multi-spin Ising sweeps across groups (multispin_ising_sweeps.hpp), per Highway target. The
// groups of one vector are interleaved for the sweep (site i of lane l at w[i N + l]) and
// written back after it; their random words are made in lanes, one group per lane.
#include <algorithm>
#include <array>
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
#include "kernels/multispin_lanes-inl.h"

HWY_BEFORE_NAMESPACE();
namespace logz::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using multispin::IsingSweeps, multispin::kFixedBits, multispin::kThresholdBits,
    multispin::RejectableClasses, multispin::Threshold, multispin::Visit, multispin::Word;

constexpr std::size_t kChunk = 16;  // site visits whose words are made at once

// Where a sweep's segments of site visits start (sweep order, j = 0 .. n - 1): with each chunk,
// and before a visit that reads or writes a site visited earlier in the segment (never in
// checkerboard order on even tori, where a colour's sites do not touch; on odd ones the colours
// touch across the wrap). Within a segment a visit's flips may be settled late (LateTails).
inline std::vector<std::uint8_t> SegmentStarts(const IsingSweeps& job, std::size_t chunk) {
  const std::size_t n = job.num_sites;
  std::vector<std::uint8_t> starts(n);
  std::vector<std::size_t> stamp(n, 0);  // a site's last segment
  std::size_t segment = 0;
  for (std::size_t j = 0; j < n; ++j) {
    const Visit& v = job.visits[job.reversed ? n - 1 - j : j];
    bool touches = stamp[static_cast<std::size_t>(v.site)] == segment;
    for (const std::int32_t i : v.nb)
      touches = touches || stamp[static_cast<std::size_t>(i)] == segment;
    if (j % chunk == 0 || touches) ++segment, starts[j] = 1;
    stamp[static_cast<std::size_t>(v.site)] = segment;
  }
  return starts;
}

// The visits of a segment whose lanes are still undecided after their first tail block,
// finished when the segment ends: their comparisons go on from the threshold's bit kFixedBits +
// 2 with the words of blocks kMaxVisits + q, 2 kMaxVisits + q, .. of random.stream(64 g + 1)
// (two words a block; the same words as one visit at a time, counter-based), made four visits
// at a time (the multiplies' throughput rather than one block's latency), as long as any lane
// of any group needs them (a group's words do not depend on which others share its vector);
// lanes equal over all 32 bits are rejected. A visit's flips are written at once, the late
// acceptances when its segment ends.
template <class D>
class LateTails {
 public:
  static constexpr std::size_t kMaxClasses = 10;

  LateTails(D d, const BatchRandom& random, std::size_t g0, const LaneKeys<D>& keys,
            const RejectableClasses& rc)
      : d_(d),
        keys_(keys),
        rc_(rc),
        stream_(d,
                LaneStreams<D>(d, random.step, static_cast<std::uint32_t>(random.purpose),
                               hn::Add(hn::ShiftLeft<6>(hn::Iota(d, 0)),
                                       hn::Set(d, random.first_particle + 64 * g0 + 1))),
                keys),
        slots_(hwy::AllocateAligned<Word>(kChunk * kSlot * hn::Lanes(d))),
        late_(hwy::AllocateAligned<Word>(kChunk * hn::Lanes(d))),
        words_(hwy::AllocateAligned<Word>(8 * hn::Lanes(d))) {}

  // Keeps visit q of site `site` with its undecided lanes and class masks (rc's order): always
  // stored, counted only when some lane is undecided (no branch to mispredict). At most kChunk
  // a segment.
  void keep(std::uint64_t q, std::int32_t site, hn::Vec<D> pending, const hn::Vec<D>* classes) {
    Word* slot = slot_of(count_);
    hn::Store(pending, d_, slot);
    for (int c = 0; c < rc_.count; ++c)
      hn::Store(classes[c], d_, slot + (1 + static_cast<std::size_t>(c)) * hn::Lanes(d_));
    visit_[count_] = q;
    site_[count_] = site;
    count_ += hn::AllTrue(d_, hn::Eq(pending, hn::Zero(d_))) ? 0 : 1;
  }
  bool empty() const { return count_ == 0; }

  // Settles the kept visits: flips their late-accepted lanes in `groups` and adds them
  // (within lane_mask) to `moved`.
  void finish(GroupLanes<D>& groups, hn::Vec<D> lane_mask, hn::Vec<D>& moved) {
    const std::size_t N = hn::Lanes(d_);
    const auto zero = hn::Zero(d_);
    std::size_t live[kChunk], num_live = count_;
    for (std::size_t e = 0; e < count_; ++e) live[e] = e, hn::Store(zero, d_, late_.get() + e * N);
    for (std::uint64_t i = 1, b = multispin::kFixedBits + 2; num_live > 0 && b < kThresholdBits;
         ++i, b += 2) {
      for (std::size_t u = 0; u < num_live; u += 4) {
        const std::size_t k = std::min<std::size_t>(4, num_live - u);
        std::uint64_t j[4] = {};
        for (std::size_t x = 0; x < k; ++x) j[x] = i * multispin::kMaxVisits + visit_[live[u + x]];
        LaneWordsAt(d_, k, j, stream_, keys_, words_.get());
        for (std::size_t x = 0; x < k; ++x) {
          Word* slot = slot_of(live[u + x]);
          Word* late = late_.get() + live[u + x] * N;
          auto pending = hn::Load(d_, slot), accept = hn::Load(d_, late);
          for (std::size_t w = 0; w < 2; ++w) {
            const auto t = ThresholdBit(d_, rc_, static_cast<int>(b + w), [&](int c) {
              return hn::Load(d_, slot + (1 + static_cast<std::size_t>(c)) * N);
            });
            CompareNextBit(hn::Load(d_, words_.get() + (2 * x + w) * N), t, accept, pending);
          }
          hn::Store(pending, d_, slot);
          hn::Store(accept, d_, late);
        }
      }
      std::size_t kept = 0;
      for (std::size_t x = 0; x < num_live; ++x)
        if (!hn::AllTrue(d_, hn::Eq(hn::Load(d_, slot_of(live[x])), zero))) live[kept++] = live[x];
      num_live = kept;
    }
    for (std::size_t e = 0; e < count_; ++e) {
      Word* site = groups.at(static_cast<std::size_t>(site_[e]));
      const auto flip = hn::Load(d_, late_.get() + e * N);
      hn::Store(hn::Xor(hn::Load(d_, site), flip), d_, site);
      moved = hn::Add(moved, hn::PopulationCount(hn::And(flip, lane_mask)));
    }
    count_ = 0;
  }

 private:
  static constexpr std::size_t kSlot = 1 + kMaxClasses;  // undecided lanes, class masks
  Word* slot_of(std::size_t e) { return slots_.get() + e * kSlot * hn::Lanes(d_); }

  D d_;
  const LaneKeys<D>& keys_;
  const RejectableClasses& rc_;
  LaneRoundsStart<D> stream_;  // random.stream(64 g + 1) of each lane's group
  hwy::AlignedFreeUniquePtr<Word[]> slots_, late_, words_;
  std::uint64_t visit_[kChunk] = {};
  std::int32_t site_[kChunk] = {};
  std::size_t count_ = 0;
};

// The groups g0 .. g0 + Lanes(d) - 1 through all sweeps; returns how many of their lanes
// changed, and writes their particles' anti-aligned bonds (and with a field, +1 spins).
template <bool kField, class D>
std::uint64_t SweepGroups(D d, const IsingSweeps& job, Word* words, std::size_t num_particles,
                          std::size_t g0, std::int64_t* anti_aligned, std::int64_t* up_counts) {
  const std::size_t N = hn::Lanes(d), n = job.num_sites;
  GroupLanes<D> groups(d, words, n, num_particles, g0);
  // Each visit's fixed words, and its tail's first block (block q of random.stream(64 g + 1)):
  // most visits near the critical point need one in some lane, so they are made in bulk too.
  GroupWords<D> fixed_words(d, job.random, groups, 0, kChunk * kFixedBits),
      first_tail_words(d, job.random, groups, 1, 2 * kChunk);
  const LaneKeys<D> key(d, PhiloxKey{static_cast<std::uint32_t>(job.random.seed),
                                     static_cast<std::uint32_t>(job.random.seed >> 32)});
  const auto lane_mask = groups.particle_mask();
  const auto invert = hn::Set(d, job.invert), self_left = hn::Set(d, job.self_left),
             self_up = hn::Set(d, job.self_up), zero = hn::Zero(d);
  // The classes that can reject: with a field, field_classes' ten (5 z + a); else the
  // ferromagnet's two, hard (no anti-aligned neighbour) and soft (one).
  const std::array<Threshold, 2> ferromagnet =
      kField ? std::array<Threshold, 2>{} : std::array<Threshold, 2>{*job.hard, *job.soft};
  const RejectableClasses rc =
      kField ? RejectableClasses(job.field_classes, 10) : RejectableClasses(ferromagnet.data(), 2);
  // No lane can be rejected (every threshold at or past 2^32, as at beta = 0): no words.
  const bool draws = rc.count > 0;
  hn::Vec<D> classes[LateTails<D>::kMaxClasses];  // the lanes of each class of rc at a visit
  auto threshold_bits = [&](int b) {
    return ThresholdBit(d, rc, b, [&](int c) { return classes[c]; });
  };
  auto count = zero;
  LateTails<D> late(d, job.random, g0, key, rc);
  const std::vector<std::uint8_t> segment_starts = SegmentStarts(job, kChunk);
  std::uint64_t visit = 0;  // the step's site visits so far
  for (std::size_t sweep = 0; sweep < job.sweeps; ++sweep) {
    if (sweep > 0) job.stop.throw_if_requested();
    for (std::size_t j0 = 0; j0 < n; j0 += kChunk) {
      const std::size_t m = std::min(kChunk, n - j0);
      const Word* fixed = draws ? fixed_words.next(kFixedBits * m) : nullptr;
      const Word* first_tail = draws ? first_tail_words.next(2 * m) : nullptr;
      for (std::size_t k = 0; k < m; ++k, ++visit) {
        const std::size_t j = j0 + k;
        if (segment_starts[j] && !late.empty()) late.finish(groups, lane_mask, count);
        const Visit& v = job.visits[job.reversed ? n - 1 - j : j];
        Word* site = groups.at(static_cast<std::size_t>(v.site));
        auto neighbour = [&](int x) { return hn::Load(d, groups.at(v.nb[x])); };
        const auto s = hn::Load(d, site);
        // v_x: lanes where neighbour x is anti-aligned (aligned when K < 0).
        const auto v0 = hn::Xor3(s, neighbour(0), invert);
        const auto v1 = hn::Xor3(s, neighbour(1), invert);
        const auto v2 = hn::Xor(hn::Xor3(s, neighbour(2), invert), self_left);
        const auto v3 = hn::Xor(hn::Xor3(s, neighbour(3), invert), self_up);
        const auto x01 = hn::Xor(v0, v1), x23 = hn::Xor(v2, v3);
        auto candidates = zero;
        if constexpr (kField) {
          // a = v0 + v1 + v2 + v3 in bits a2 a1 a0, then one mask per value and spin.
          const auto a0 = hn::Xor(x01, x23), carry = hn::And(x01, x23);
          const auto c01 = hn::And(v0, v1), c23 = hn::And(v2, v3);
          const auto a1 = hn::Xor3(c01, c23, carry), a2 = hn::And(c01, c23);
          for (int c = 0; c < rc.count; ++c) {
            const int a = rc.index[c] % 5;
            const auto low = a == 0   ? hn::Not(hn::Or3(a0, a1, a2))
                             : a == 1 ? hn::AndNot(a1, a0)
                             : a == 2 ? hn::AndNot(a0, a1)
                             : a == 3 ? hn::And(a0, a1)
                                      : a2;
            classes[c] = rc.index[c] >= 5 ? hn::And(low, s) : hn::AndNot(s, low);
            candidates = hn::Or(candidates, classes[c]);
          }
        } else {
          const auto two_or_more = hn::Or3(hn::And(v0, v1), hn::And(v2, v3), hn::And(x01, x23));
          for (int c = 0; c < rc.count; ++c) {
            classes[c] = rc.index[c] == 0 ? hn::Not(hn::Or(hn::Or(v0, v1), hn::Or(v2, v3)))
                                          : hn::AndNot(two_or_more, hn::Xor(x01, x23));
            candidates = hn::Or(candidates, classes[c]);
          }
        }
        auto accept = zero;
        if (draws) {
          hn::Vec<D> below, equal;
          CompareFixedBits(d, fixed + k * kFixedBits * N, threshold_bits, below, equal);
          accept = hn::And(candidates, below);
          // The first tail block (block q of random.stream(64 g + 1), made in bulk).
          auto pending = hn::And(candidates, equal);
          for (int x = 0; x < 2; ++x)
            CompareNextBit(hn::Load(d, first_tail + (2 * k + static_cast<std::size_t>(x)) * N),
                           threshold_bits(kFixedBits + x), accept, pending);
          late.keep(visit, v.site, pending, classes);  // lanes still undecided
        }
        const auto flip = hn::Or(hn::Not(candidates), accept);
        hn::Store(hn::Xor(s, flip), d, site);
        count = hn::Add(count, hn::PopulationCount(hn::And(flip, lane_mask)));
      }
    }
  }
  if (!late.empty()) late.finish(groups, lane_mask, count);
  groups.write_back();
  // Anti-aligned bonds: right and down of every site.
  BitSlicedCounter<D> anti(d, std::bit_width(2 * n));
  for (std::size_t i = 0; i < n; ++i) {
    const Visit& v = job.visits[i];
    const auto s = hn::Load(d, groups.at(static_cast<std::size_t>(v.site)));
    anti.add(hn::Xor(s, hn::Load(d, groups.at(static_cast<std::size_t>(v.nb[0])))));
    anti.add(hn::Xor(s, hn::Load(d, groups.at(static_cast<std::size_t>(v.nb[1])))));
  }
  anti.store(groups, anti_aligned);
  if constexpr (kField) {
    BitSlicedCounter<D> up(d, std::bit_width(n));
    for (std::size_t i = 0; i < n; ++i) up.add(hn::Load(d, groups.at(i)));
    up.store(groups, up_counts);
  }
  return SumOfLanes64(d, count);
}

std::uint64_t IsingSweepsOf(const IsingSweeps& job, Word* words, std::size_t num_particles,
                            std::int64_t* anti_aligned, std::int64_t* up_counts) {
  return OverGroupVectors(
      hn::ScalableTag<std::uint64_t>(), (num_particles + 63) / 64, [&](auto d, std::size_t g0) {
        return job.field_classes != nullptr
                   ? SweepGroups<true>(d, job, words, num_particles, g0, anti_aligned, up_counts)
                   : SweepGroups<false>(d, job, words, num_particles, g0, anti_aligned, nullptr);
      });
}

}  // namespace logz::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace logz {

HWY_EXPORT(IsingSweepsOf);

std::uint64_t multispin::ising_sweeps(const IsingSweeps& job, Word* words,
                                      std::size_t num_particles, std::int64_t* anti_aligned,
                                      std::int64_t* up_counts) {
  return HWY_DYNAMIC_DISPATCH(IsingSweepsOf)(job, words, num_particles, anti_aligned, up_counts);
}

}  // namespace logz
#endif
