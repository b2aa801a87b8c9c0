// Multi-spin Potts sweeps across groups (multispin_potts_sweeps.hpp), per Highway target and
// colour width P (planes). The groups of one vector are interleaved for the sweep (plane b of
// site i of lane l at w[(i P + b) N + l]) and written back after it; their words are made in
// lanes, one group's stream per lane, a chunk of site visits at a time.
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "hwy_dispatch.hpp"  // before Highway: the targets it dispatches to
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/multispin_potts_sweeps.cpp"
#include <hwy/aligned_allocator.h>
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/multispin_lanes-inl.h"
#include "kernels/multispin_potts_sweeps.hpp"

#if HWY_ONCE
namespace logz::multispin {

std::size_t PottsSweeps::words_per_visit() const {
  std::size_t n = static_cast<std::size_t>(kFixedBits);  // the acceptance
  if (offset_bits >= 0) return n + 1 + static_cast<std::size_t>(offset_bits);
  for (const ProposalBlock& b : blocks)
    n += static_cast<std::size_t>(b.bits) + (b.last ? 0 : static_cast<std::size_t>(kFixedBits));
  return n;
}

}  // namespace logz::multispin
#endif

HWY_BEFORE_NAMESPACE();
namespace logz::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using multispin::Fraction, multispin::kAll, multispin::kFixedBits, multispin::kThresholdBits,
    multispin::PottsSweeps, multispin::ProposalBlock, multispin::RandomWords,
    multispin::RejectableClasses, multispin::Threshold, multispin::Visit, multispin::Word;

constexpr std::size_t kVisitsPerChunk = 16;  // site visits whose words are made at once

// Lanes still undecided after the fixed rounds of a comparison with a fraction: its digits
// from kFixedBits on, then, past the tabulated ones (probability 2^-64 a lane), its expansion
// computed on; words from `tail`. Lanes equal to a dyadic fraction all the way: not below.
Word FinishFraction(Word pending, const Fraction& f, RandomWords& tail) {
  Word accept = 0;
  for (int b = kFixedBits; pending != 0 && b < Fraction::kDigits; ++b) {
    const Word r = tail.next(), t = f.bits[b];
    accept |= pending & t & ~r;
    pending &= ~(r ^ t);
  }
  for (std::uint64_t rest = f.rest; pending != 0 && rest != 0;) {
    rest *= 2;
    const Word t = rest >= f.den ? kAll : 0;
    if (t) rest -= f.den;
    const Word r = tail.next();
    accept |= pending & t & ~r;
    pending &= ~(r ^ t);
  }
  return accept;
}

// The same for the acceptance's 32-bit thresholds: lane classes[k] of class r.index[k].
Word FinishThresholds(Word pending, const Word* classes, const RejectableClasses& r,
                      RandomWords& tail) {
  Word accept = 0;
  for (int b = kFixedBits; pending != 0 && b < kThresholdBits; ++b) {
    const Word r_b = tail.next(), t = r.threshold_bit(classes, b);
    accept |= pending & t & ~r_b;
    pending &= ~(r_b ^ t);
  }
  return accept;
}

template <class D>
using V = hn::Vec<D>;

// Bit-sliced majority of three (the carry of a full adder).
template <class Vec>
HWY_INLINE Vec Majority(Vec a, Vec b, Vec c) {
  return hn::Or(hn::And(a, b), hn::And(c, hn::Xor(a, b)));
}

// The offset proposal's colour c = (x + o) mod q in P bit planes, o = +-(1 + m) with m the
// `bits`-bit number in the words r[N], r[2 N], .. and the sign in r[0]: o = 1 + m, or
// q - 2^bits + (2^bits - 1 - m) = q - 1 - m. x + o lies in [1, 2q - 2], so one conditional
// subtraction of q reduces it.
template <int P, class D>
HWY_INLINE void OffsetColour(D d, const V<D>* x, const Word* r, int bits, int q, V<D>* c) {
  const std::size_t N = hn::Lanes(d);
  const auto zero = hn::Zero(d), ones = hn::Not(zero);
  const auto minus = hn::Load(d, r);
  const unsigned low = 1, high = static_cast<unsigned>(q) - (1u << bits);  // o's base
  V<D> t[P];
  auto carry_o = zero, carry_t = zero;
  for (int b = 0; b < P; ++b) {
    const bool lb = (low >> b) & 1, hb = (high >> b) & 1;
    const auto base = lb == hb ? (lb ? ones : zero) : (hb ? minus : hn::Not(minus));
    const auto m =
        b < bits ? hn::Xor(hn::Load(d, r + static_cast<std::size_t>(1 + b) * N), minus) : zero;
    const auto o = hn::Xor3(base, m, carry_o);
    carry_o = Majority(base, m, carry_o);
    t[b] = hn::Xor3(x[b], o, carry_t);
    carry_t = Majority(x[b], o, carry_t);
  }
  // t >= q, compared from bit P (t's is the carry out of the top plane; q's is set only where
  // q = 2^P) down, then t - q = t + (2^P - q) mod 2^P.
  const bool q_top = (q >> P) & 1;
  auto greater = q_top ? zero : carry_t, equal = q_top ? carry_t : hn::Not(carry_t);
  for (int b = P - 1; b >= 0; --b) {
    if ((q >> b) & 1) {
      equal = hn::And(equal, t[b]);
    } else {
      greater = hn::Or(greater, hn::And(equal, t[b]));
      equal = hn::AndNot(t[b], equal);
    }
  }
  const auto wrap = hn::Or(greater, equal);
  const unsigned complement = ((1u << P) - static_cast<unsigned>(q)) & ((1u << P) - 1);
  auto carry = zero;
  for (int b = 0; b < P; ++b) {
    const auto k = (complement >> b) & 1 ? ones : zero;
    const auto reduced = hn::Xor3(t[b], k, carry);
    carry = Majority(t[b], k, carry);
    c[b] = hn::IfVecThenElse(wrap, reduced, t[b]);
  }
}

// The groups g0 .. g0 + Lanes(d) - 1 through all sweeps; returns how many of their lanes
// moved, and writes their particles' equal-colour bonds.
template <int P, bool kField, class D>
std::uint64_t SweepPottsGroups(D d, const PottsSweeps& job, Word* words, std::size_t num_particles,
                               std::size_t g0, std::int64_t* equal_bonds,
                               std::int64_t* zero_counts) {
  const std::size_t N = hn::Lanes(d), n = job.num_sites;
  const std::size_t F = job.words_per_visit();
  GroupLanes<D> groups(d, words, n * P, num_particles, g0);
  GroupWords<D> fixed_words(d, job.random, groups, 0, F * kVisitsPerChunk);
  const std::size_t lanes = groups.lanes();
  std::vector<RandomWords> tails;  // random.stream(64 g + 1), read on group by group
  for (std::size_t l = 0; l < lanes; ++l) tails.emplace_back(job.random.stream(64 * (g0 + l) + 1));
  const RejectableClasses rejectable_classes =
      kField ? RejectableClasses(job.field_thresholds.data(), 18)
             : RejectableClasses(job.thresholds.data(), 4);
  auto scratch = hwy::AllocateAligned<Word>((2 + 18) * N);
  const auto lane_mask = groups.particle_mask();
  const auto zero = hn::Zero(d), ones = hn::Not(zero);
  auto site_plane = [&](std::int32_t i, int b) {
    return groups.at(static_cast<std::size_t>(i) * P + static_cast<std::size_t>(b));
  };

  // The lanes of `lanes_in` whose own uniform is below the fraction f, the undecided ones
  // finished.
  auto below_fraction = [&](V<D> lanes_in, const Fraction& f, const Word* r) {
    V<D> below, equal;
    CompareFixedBits(
        d, r, [&](int b) { return hn::Set(d, f.bits[b]); }, below, equal);
    auto accept = hn::And(lanes_in, below);
    const auto pending = hn::And(lanes_in, equal);
    if (!hn::AllTrue(d, hn::Eq(pending, zero))) {
      hn::Store(pending, d, scratch.get());
      hn::Store(accept, d, scratch.get() + N);
      ForEachNonZeroLane(d, pending, lanes, [&](std::size_t l) {
        scratch[N + l] |= FinishFraction(scratch[l], f, tails[l]);
      });
      accept = hn::Load(d, scratch.get() + N);
    }
    return accept;
  };

  auto count = zero;
  for (std::size_t sweep = 0; sweep < job.sweeps; ++sweep) {
    if (sweep > 0) job.stop.throw_if_requested();
    for (std::size_t j0 = 0; j0 < n; j0 += kVisitsPerChunk) {
      const std::size_t m = std::min(kVisitsPerChunk, n - j0);
      const Word* fixed = fixed_words.next(F * m);
      for (std::size_t k = 0; k < m; ++k) {
        const std::size_t j = j0 + k;
        const Visit& v = job.visits[job.reversed ? n - 1 - j : j];
        const Word* r = fixed + F * k * N;
        V<D> x[P], c[P];
        for (int b = 0; b < P; ++b) x[b] = hn::Load(d, site_plane(v.site, b));
        if (!kField && job.offset_bits >= 0) {
          OffsetColour<P>(d, x, r, job.offset_bits, job.num_colours, c);
          r += static_cast<std::size_t>(1 + job.offset_bits) * N;
        } else {
          // A uniform value among q - 1, block by block (multispin_bits.hpp).
          V<D> prop[P];
          for (int b = 0; b < P; ++b) prop[b] = zero;
          auto outside = ones;  // lanes not yet in a block
          for (const ProposalBlock& block : job.blocks) {
            V<D> in_block = outside;
            if (!block.last) {
              in_block = below_fraction(outside, block.share, r);
              r += kFixedBits * N;
            }
            for (int b = 0; b < P; ++b) {
              V<D> value;
              if (b < block.bits) {
                value = hn::Load(d, r);
                r += N;
              } else {
                value = (block.base >> b) & 1 ? ones : zero;
              }
              prop[b] = hn::Or(prop[b], hn::And(value, in_block));
            }
            outside = hn::AndNot(in_block, outside);
          }
          // The new colour: the proposal, or it + 1 where it is at or above the old colour.
          auto below = zero, equal = ones;  // lanes with proposal < old colour
          for (int b = P - 1; b >= 0; --b) {
            below = hn::Or(below, hn::And(equal, hn::AndNot(prop[b], x[b])));
            equal = hn::AndNot(hn::Xor(prop[b], x[b]), equal);
          }
          auto carry = hn::Not(below);
          for (int b = 0; b < P; ++b) {
            c[b] = hn::Xor(prop[b], carry);
            carry = hn::And(carry, prop[b]);
          }
        }
        // Through colour 0: from colour 0 the proposal + 1 (above), from any other colour 0.
        auto from_zero = zero;
        if constexpr (kField) {
          auto nonzero = zero;
          for (int b = 0; b < P; ++b) nonzero = hn::Or(nonzero, x[b]);
          from_zero = hn::Not(nonzero);
          for (int b = 0; b < P; ++b) c[b] = hn::And(c[b], from_zero);
        }
        // Equal neighbours before and after, counted in three bit planes.
        V<D> before[4], after[4];
        for (int s = 0; s < 4; ++s) {
          auto differ_x = zero, differ_c = zero;
          for (int b = 0; b < P; ++b) {
            const auto yb = hn::Load(d, site_plane(v.nb[s], b));
            differ_x = hn::Or(differ_x, hn::Xor(x[b], yb));
            differ_c = hn::Or(differ_c, hn::Xor(c[b], yb));
          }
          const auto counted = hn::Set(d, job.counted[s]);
          before[s] = hn::AndNot(differ_x, counted);
          after[s] = hn::AndNot(differ_c, counted);
        }
        auto count4 = [&](const V<D>* m, V<D>& b0, V<D>& b1, V<D>& b2) {
          const auto s01 = hn::Xor(m[0], m[1]), c01 = hn::And(m[0], m[1]);
          const auto s23 = hn::Xor(m[2], m[3]), c23 = hn::And(m[2], m[3]);
          const auto carry = hn::And(s01, s23);
          b0 = hn::Xor(s01, s23);
          b1 = hn::Xor3(c01, c23, carry);
          b2 = hn::Or(hn::And(c01, c23), hn::And(hn::Xor(c01, c23), carry));
        };
        V<D> a[3], e[3];  // D = a - e: the count that may exceed the other by the class
        count4(job.gains ? after : before, a[0], a[1], a[2]);
        count4(job.gains ? before : after, e[0], e[1], e[2]);
        auto carry = ones;
        V<D> diff[3];
        for (int b = 0; b < 3; ++b) {
          const auto y = hn::Not(e[b]);
          diff[b] = hn::Xor3(a[b], y, carry);
          carry = hn::Or(hn::And(a[b], y), hn::And(carry, hn::Xor(a[b], y)));
        }
        const auto non_negative = carry;  // bit 3 of D is ~carry
        // One mask per class that can reject: with a field, D's sign and low three bits and the
        // old colour; else D = 1..4 (lost equal neighbours, or gained where K < 0).
        const RejectableClasses& rc = rejectable_classes;
        V<D> classes[18];
        auto rejectable = zero;
        for (int k2 = 0; k2 < rc.count; ++k2) {
          const int cls = rc.index[k2];
          if constexpr (kField) {
            const int value = cls % 9 - 4;
            auto m = value >= 0 ? non_negative : hn::Not(non_negative);
            for (int b = 0; b < 3; ++b)
              m = ((value & 7) >> b) & 1 ? hn::And(m, diff[b]) : hn::AndNot(diff[b], m);
            classes[k2] = cls >= 9 ? hn::And(m, from_zero) : hn::AndNot(from_zero, m);
          } else {
            const auto low = cls == 0   ? hn::AndNot(diff[1], diff[0])
                             : cls == 1 ? hn::AndNot(diff[0], diff[1])
                             : cls == 2 ? hn::And(diff[1], diff[0])
                                        : hn::Not(hn::Or(diff[1], diff[0]));
            classes[k2] =
                hn::And(non_negative, cls == 3 ? hn::And(diff[2], low) : hn::AndNot(diff[2], low));
          }
          rejectable = hn::Or(rejectable, classes[k2]);
        }
        // The acceptance: the fixed rounds, then the undecided lanes.
        V<D> below, equal;
        CompareFixedBits(
            d, r, [&](int b) { return ThresholdBit(d, rc, b, [&](int c) { return classes[c]; }); },
            below, equal);
        auto accept = hn::And(rejectable, below);
        const auto pending = hn::And(rejectable, equal);
        if (!hn::AllTrue(d, hn::Eq(pending, zero))) {
          hn::Store(pending, d, scratch.get());
          hn::Store(accept, d, scratch.get() + N);
          for (int k2 = 0; k2 < rc.count; ++k2)
            hn::Store(classes[k2], d, scratch.get() + (2 + k2) * N);
          ForEachNonZeroLane(d, pending, lanes, [&](std::size_t l) {
            Word cl[18];
            for (int k2 = 0; k2 < rc.count; ++k2) cl[k2] = scratch[(2 + k2) * N + l];
            scratch[N + l] |= FinishThresholds(scratch[l], cl, rc, tails[l]);
          });
          accept = hn::Load(d, scratch.get() + N);
        }
        const auto move = hn::Or(hn::Not(rejectable), accept);
        for (int b = 0; b < P; ++b)
          hn::Store(hn::Xor(x[b], hn::And(hn::Xor(x[b], c[b]), move)), d, site_plane(v.site, b));
        count = hn::Add(count, hn::PopulationCount(hn::And(move, lane_mask)));
      }
    }
  }
  groups.write_back();
  // Equal-colour bonds: right and down of every site (self-bonds of 1-wide tori included).
  BitSlicedCounter<D> equal(d, std::bit_width(2 * n));
  for (std::size_t i = 0; i < n; ++i) {
    const Visit& v = job.visits[i];
    for (int s = 0; s < 2; ++s) {
      auto differ = zero;
      for (int b = 0; b < P; ++b)
        differ = hn::Or(differ, hn::Xor(hn::Load(d, site_plane(v.site, b)),
                                        hn::Load(d, site_plane(v.nb[s], b))));
      equal.add(hn::Not(differ));
    }
  }
  equal.store(groups, equal_bonds);
  if constexpr (kField) {
    BitSlicedCounter<D> zeros(d, std::bit_width(n));
    for (std::size_t i = 0; i < n; ++i) {
      auto nonzero = zero;
      for (int b = 0; b < P; ++b)
        nonzero = hn::Or(nonzero, hn::Load(d, site_plane(static_cast<std::int32_t>(i), b)));
      zeros.add(hn::Not(nonzero));
    }
    zeros.store(groups, zero_counts);
  }
  return SumOfLanes64(d, count);
}

template <int P>
std::uint64_t PottsSweepsOfWidth(const PottsSweeps& job, Word* words, std::size_t num_particles,
                                 std::int64_t* equal_bonds, std::int64_t* zero_counts) {
  return OverGroupVectors(
      hn::ScalableTag<std::uint64_t>(), (num_particles + 63) / 64, [&](auto d, std::size_t g0) {
        return job.field ? SweepPottsGroups<P, true>(d, job, words, num_particles, g0, equal_bonds,
                                                     zero_counts)
                         : SweepPottsGroups<P, false>(d, job, words, num_particles, g0, equal_bonds,
                                                      nullptr);
      });
}

std::uint64_t PottsSweepsOf(const PottsSweeps& job, Word* words, std::size_t num_particles,
                            std::int64_t* equal_bonds, std::int64_t* zero_counts) {
  switch (job.planes) {
    case 1:
      return PottsSweepsOfWidth<1>(job, words, num_particles, equal_bonds, zero_counts);
    case 2:
      return PottsSweepsOfWidth<2>(job, words, num_particles, equal_bonds, zero_counts);
    case 3:
      return PottsSweepsOfWidth<3>(job, words, num_particles, equal_bonds, zero_counts);
    case 4:
      return PottsSweepsOfWidth<4>(job, words, num_particles, equal_bonds, zero_counts);
    case 5:
      return PottsSweepsOfWidth<5>(job, words, num_particles, equal_bonds, zero_counts);
    case 6:
      return PottsSweepsOfWidth<6>(job, words, num_particles, equal_bonds, zero_counts);
    case 7:
      return PottsSweepsOfWidth<7>(job, words, num_particles, equal_bonds, zero_counts);
    default:
      return PottsSweepsOfWidth<8>(job, words, num_particles, equal_bonds, zero_counts);
  }
}

}  // namespace logz::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace logz {

HWY_EXPORT(PottsSweepsOf);

std::uint64_t multispin::potts_sweeps(const PottsSweeps& job, Word* words,
                                      std::size_t num_particles, std::int64_t* equal_bonds,
                                      std::int64_t* zero_counts) {
  return HWY_DYNAMIC_DISPATCH(PottsSweepsOf)(job, words, num_particles, equal_bonds, zero_counts);
}

}  // namespace logz
#endif
