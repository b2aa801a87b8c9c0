// What the multi-spin lattice kernels share (kernels/multispin_metropolis.hpp,
// kernels/multispin_potts_metropolis.hpp, kernels/multispin_ising_sweeps.hpp): 64 particles per
// word, one bit each; sweeps in a fixed site order; random words drawn in bulk; Bernoulli
// acceptances of all lanes at once by comparing each lane's own 32-bit uniform bit by bit with
// a threshold; and per-lane counts kept in bit-sliced counters.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "logz/core/stop_request.hpp"
#include "logz/kernels/kernel_info.hpp"
#include "logz/models/torus_lattice.hpp"
#include "logz/random/philox.hpp"

namespace logz::multispin {

using Word = std::uint64_t;
constexpr Word kAll = ~Word{0};
constexpr int kThresholdBits = 32;
constexpr std::uint64_t kAlways = std::uint64_t{1}
                                  << kThresholdBits;  // a threshold no draw reaches
constexpr int kFixedBits = 8;  // bits every lane comparison takes (see below_thresholds)

// A site and its neighbours (right, down, left, up), in the order a sweep visits them.
struct Visit {
  std::int32_t site;
  std::array<std::int32_t, 4> nb;
};

// Colour 0, then colour 1, each in increasing site order (the reversed sweep runs it backwards).
inline std::vector<Visit> sweep_order(const TorusLattice& lattice) {
  std::vector<Visit> visits;
  visits.reserve(static_cast<std::size_t>(lattice.num_sites()));
  for (int colour = 0; colour < 2; ++colour)
    for (std::int32_t i : lattice.sites_of_colour(colour))
      visits.push_back({i, lattice.neighbours(i)});
  return visits;
}

// 64 random bits at a time from one stream, drawn in bulk.
class RandomWords {
 public:
  explicit RandomWords(RandomStream stream) : stream_(stream) {}
  Word next() {
    if (pos_ == kBuffered) {
      stream_.fill_u32(buffer_.data(), buffer_.size());
      pos_ = 0;
    }
    const Word w = (static_cast<Word>(buffer_[2 * pos_]) << 32) | buffer_[2 * pos_ + 1];
    ++pos_;
    return w;
  }

 private:
  static constexpr std::size_t kBuffered = 256;  // words
  RandomStream stream_;
  std::array<std::uint32_t, 2 * kBuffered> buffer_{};
  std::size_t pos_ = kBuffered;
};

// A 32-bit acceptance threshold as lane masks, most significant bit first; `active` is kAll
// when the threshold can reject (below 2^32).
struct Threshold {
  Word active = 0;
  std::array<Word, kThresholdBits> bits{};

  Threshold() = default;
  explicit Threshold(std::uint64_t threshold) : active(threshold < kAlways ? kAll : 0) {
    for (int b = 0; b < kThresholdBits; ++b)
      bits[b] = (threshold >> (kThresholdBits - 1 - b)) & 1 ? kAll : 0;
  }
};

// The lanes of `classes` (disjoint masks, one per threshold) whose own uniform 32-bit number u
// is below their class's threshold, u drawn lane by lane from `random`: the comparison goes bit
// by bit from the top, a lane decided at the first bit where u and the threshold differ, and
// stops when every lane is decided (lanes equal to the threshold over all 32 bits: u == it, so
// rejected). Every lane reads its own bits only, so lanes stay independent.
template <std::size_t N>
Word below_thresholds(std::array<Word, N> classes,
                      const std::array<const Threshold*, N>& thresholds, RandomWords& random) {
  Word accept = 0, undecided = 0;
  for (std::size_t c = 0; c < N; ++c) undecided |= classes[c] &= thresholds[c]->active;
  if (undecided == 0) return accept;
  // The first kFixedBits bits without a test of `undecided`, whose exit the processor could
  // not predict (64 lanes need about 8 bits); the rest while lanes are undecided.
  for (int b = 0; (b < kFixedBits || undecided != 0) && b < kThresholdBits; ++b) {
    const Word r = random.next();
    Word t = 0;  // bit b of each lane's own threshold
    for (std::size_t c = 0; c < N; ++c) t |= classes[c] & thresholds[c]->bits[b];
    accept |= undecided & t & ~r;
    undecided &= ~(r ^ t);
  }
  return accept;
}

// A fraction num / den in (0, 1) as lane masks of its first binary digits, and what is left
// of the expansion after them (for the rare lane that needs more).
struct Fraction {
  static constexpr int kDigits = 64;
  std::array<Word, kDigits> bits{};
  std::uint64_t den = 1, rest = 0;  // num / den = 0.bits... + rest / den * 2^-kDigits

  Fraction() = default;
  Fraction(std::uint64_t num, std::uint64_t den_) : den(den_), rest(num) {
    for (int b = 0; b < kDigits; ++b) {
      rest *= 2;
      bits[b] = rest >= den ? kAll : 0;
      if (rest >= den) rest -= den;
    }
  }
};

// The lanes of `lanes` whose own uniform number u in [0, 1) (its bits drawn lane by lane from
// `random`) is below the fraction, compared bit by bit from the top with its exact binary
// expansion until every lane is decided: an exact Bernoulli(num / den) per lane, about
// log2(64) + 2 words for 64 lanes.
inline Word below_fraction(Word lanes, const Fraction& f, RandomWords& random) {
  Word accept = 0;
  if (lanes == 0) return accept;
  for (int b = 0; (b < kFixedBits || lanes != 0) && b < Fraction::kDigits; ++b) {
    const Word r = random.next(), t = f.bits[b];
    accept |= lanes & t & ~r;
    lanes &= ~(r ^ t);
  }
  // Past the tabulated digits (probability 2^-64 per lane): the expansion, computed on.
  for (std::uint64_t rest = f.rest; lanes != 0 && rest != 0;) {
    rest *= 2;
    const Word t = rest >= f.den ? kAll : 0;
    if (t) rest -= f.den;
    const Word r = random.next();
    accept |= lanes & t & ~r;
    lanes &= ~(r ^ t);
  }
  return accept;  // lanes equal to a dyadic fraction all the way: u >= it, not below
}

// Per-lane counts in bit-sliced form: plane k holds bit k of every lane's count.
class LaneCounter {
 public:
  void add(Word m) {
    for (int k = 0; m != 0; ++k) {
      const Word carry = planes_[k] & m;
      planes_[k] ^= m;
      m = carry;
    }
  }
  std::int64_t count(std::size_t lane) const {
    std::int64_t c = 0;
    for (int k = 0; k < kPlanes; ++k) c |= static_cast<std::int64_t>((planes_[k] >> lane) & 1) << k;
    return c;
  }

 private:
  static constexpr int kPlanes = 40;  // counts up to 2^40: more bonds than any lattice has
  std::array<Word, kPlanes> planes_{};
};

// The Potts kernel's loop (the Ising kernel sweeps groups side by side instead,
// multispin_ising_sweeps.hpp): `sweeps` sweeps over every group of 64 particles of `batch`,
// update(words, visit, random) -> Word (the lanes whose value changed) at every site in sweep
// order (reversed: the exact opposite order), then recount(words, first particle) once per group
// to bring the bond sums up to date. Group g draws from random.stream(64 g). Every update counts
// as attempted, every changed lane as accepted. Throws Stopped when `stop` is requested, checked
// every sweep after the first.
template <class Batch, class Update, class Recount>
KernelInfo sweep_groups(const TorusLattice& lattice, Batch& batch, const BatchRandom& random,
                        std::size_t sweeps, bool reversed, StopToken stop, Update&& update,
                        Recount&& recount) {
  const std::vector<Visit> visits = sweep_order(lattice);
  const std::size_t n = visits.size();
  KernelInfo info;
  for (std::size_t g = 0; g < batch.num_groups(); ++g) {
    Word* w = batch.words(g);
    RandomWords words(random.stream(g * Batch::kLanes));
    const Word lanes = batch.lane_mask(g);
    std::uint64_t changed = 0;
    for (std::size_t sweep = 0; sweep < sweeps; ++sweep) {
      if (sweep > 0) stop.throw_if_requested();
      for (std::size_t j = 0; j < n; ++j)
        changed += static_cast<std::uint64_t>(
            std::popcount(update(w, visits[reversed ? n - 1 - j : j], words) & lanes));
    }
    recount(w, g * Batch::kLanes);
    info += KernelInfo{sweeps * n * static_cast<std::uint64_t>(std::popcount(lanes)), changed};
  }
  return info;
}

}  // namespace logz::multispin
