// What the multi-spin lattice kernels share (kernels/multispin_metropolis.hpp,
// kernels/multispin_potts_metropolis.hpp; their sweeps across groups, multispin_*_sweeps.hpp,
// and multispin_lanes-inl.h): 64 particles per word, one bit each; sweeps in a fixed site
// order; exact Bernoulli draws of all lanes at once by comparing each lane's own uniform bit by
// bit with a threshold or a fraction.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "logz/models/torus_lattice.hpp"
#include "logz/random/philox.hpp"

namespace logz::multispin {

using Word = std::uint64_t;
constexpr Word kAll = ~Word{0};
constexpr int kThresholdBits = 32;
constexpr std::uint64_t kAlways = std::uint64_t{1}
                                  << kThresholdBits;  // a threshold no draw reaches
constexpr int kFixedBits = 8;  // words every comparison reads at a site visit, before its tail

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

// The classes of moves whose acceptance threshold can reject (below 2^32) among thresholds[0, n),
// n <= 32, and for every bit of the threshold which of them have it set: a lane's threshold bit
// is the OR of the masks of those classes, so a bit that few classes have costs few operations.
struct RejectableClasses {
  std::array<int, 32> index{};  // into thresholds
  int count = 0;
  std::array<std::uint32_t, kThresholdBits> with_bit{};  // bit k: class index[k] has bit b

  RejectableClasses(const Threshold* thresholds, int n) {
    for (int c = 0; c < n; ++c) {
      if (thresholds[c].active == 0) continue;
      for (int b = 0; b < kThresholdBits; ++b)
        if (thresholds[c].bits[b] != 0) with_bit[b] |= 1u << count;
      index[count++] = c;
    }
  }
  // Bit b of the thresholds of lanes whose class masks (index's order) are `classes`.
  Word threshold_bit(const Word* classes, int b) const {
    Word t = 0;
    for (std::uint32_t m = with_bit[b]; m != 0; m &= m - 1) t |= classes[std::countr_zero(m)];
    return t;
  }
};

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

// A uniform proposal r in 0..q-2 per lane, exactly and without rejection: the q - 1 values
// are split by the binary digits of q - 1 into blocks of 2^e values (largest first); a lane
// falls in the first block left with probability 2^e / (values left) (an exact Bernoulli: its
// uniform against the fraction's binary expansion) and then takes e random bits, or goes on. For q
// = 10: one Bernoulli(8/9), then 3 bits or the value 8.
struct ProposalBlock {
  unsigned base = 0;  // the block's first value (its bits above bit `bits`)
  int bits = 0;       // 2^bits values
  bool last = false;  // every lane still undecided falls in it
  Fraction share;     // 2^bits / (values left), when not last
};

inline std::vector<ProposalBlock> proposal_blocks(unsigned values) {
  std::vector<ProposalBlock> blocks;
  for (unsigned base = 0; values > 0;) {
    ProposalBlock block;
    const unsigned size = std::bit_floor(values);
    block.base = base, block.bits = std::countr_zero(size), block.last = size == values;
    if (!block.last) block.share = Fraction(size, values);
    blocks.push_back(block);
    base += size, values -= size;
  }
  return blocks;
}

}  // namespace logz::multispin
