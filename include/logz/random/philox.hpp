// Counter-based random numbers: Philox4x32-10 (Salmon et al. 2011, Random123).
// A stream is addressed, not ordered: the key is the 64-bit seed and the
// counter words are (draw, step, particle, purpose), so the numbers a particle
// sees at a given step never depend on thread count, chunking or call order.
// Uniform and normal transforms are our own (std::*_distribution is
// implementation-defined).
//
// How streams are addressed. RandomStream(seed, particle, purpose, step) is one
// particle's stream; its draw word counts the blocks it has used. BatchRandom is the
// same address for a contiguous range of particles (particle first_particle + i is
// stream(i)), which is what kernels and samplers take. Drivers own the addresses:
// each stage of a run has its Purpose and numbers its steps (annealing: base draws
// (base_sample, step 0), the kernel at temperature k (forward_kernel or
// reverse_kernel, step k); simulated tempering: (tempering_kernel, sweep) and
// (tempering_level, sweep)). User callbacks are handed their streams instead of
// building them: the reverse start of annealing gets a ChunkStreams
// (parallel/chunk_streams.hpp) whose random(k) is (seed, reverse_start, step k) for
// the chunk's particles, so that user code never names a Purpose.
#pragma once

#include <Random123/philox.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace logz {

// What a stream is for: separates the numbers used by different stages of a
// run that share a seed, step and particle index.
enum class Purpose : std::uint32_t {
  base_sample = 1,
  forward_kernel = 2,
  reverse_kernel = 3,
  reverse_start = 4,
  resample = 5,
  bootstrap = 6,
  posterior = 7,
  tempering_kernel = 8,  // x-moves of simulated tempering
  tempering_level = 9,   // draws of the temperature index k given x
  tempering_start = 10,  // initial states and levels of tempered chains
  data = 11,             // data handling: binarisation by sampling, shuffles
  equilibrium = 12,      // equilibrium chains of thermodynamic integration from the ground state
  pt_kernel = 13,        // moves of parallel tempering's replicas
  pt_swap = 14,          // its swaps (and the reversible scheme's parity)
  pt_start = 15,         // its replicas' starts
  training = 20,         // model training (minibatch order, Gibbs chains of CD/PCD)
  test = 99,
};

using PhiloxCounter = std::array<std::uint32_t, 4>;
using PhiloxKey = std::array<std::uint32_t, 2>;

// One Philox4x32-10 block: four 32-bit words from a counter and a key.
inline PhiloxCounter philox4x32_10(const PhiloxCounter& counter, const PhiloxKey& key) {
  r123::Philox4x32_R<10> rng;
  r123::Philox4x32_R<10>::ctr_type c = {{counter[0], counter[1], counter[2], counter[3]}};
  r123::Philox4x32_R<10>::key_type k = {{key[0], key[1]}};
  const auto r = rng(c, k);
  return {r[0], r[1], r[2], r[3]};
}

// num_blocks consecutive blocks: counter words (draw + i, c1, c2, c3) for i = 0..num_blocks-1
// (the draw word wraps at 2^32), written block after block to out[0 .. 4 num_blocks).
// Vectorised across blocks and dispatched at run time (Highway); the numbers are the scalar
// blocks' on every instruction set.
void philox4x32_10_blocks(const PhiloxCounter& counter, const PhiloxKey& key, std::uint32_t* out,
                          std::size_t num_blocks);

// Box-Muller on random bits: pair i takes u1 from bits[4i], bits[4i+1] and u2 from bits[4i+2],
// bits[4i+3] (detail::unit_interval) and writes out[2i] = r cos(2 pi u2), out[2i+1] =
// r sin(2 pi u2), r = sqrt(-2 log u1). Vectorised (Highway, dispatched at run time: the last
// bits may differ between instruction sets, never between runs on one machine).
void box_muller(const std::uint32_t* bits, double* out, std::size_t pairs);

// Box-Muller in single precision: pair i takes r from bits[2i] (u1 = (w >> 1) 2^-31 + 2^-32 in
// (0, 1]) and the angle from bits[2i + 1] (u2 = (w >> 8) 2^-24 in [0, 1)), computes in float and
// writes out[2i] = r cos(2 pi u2), out[2i+1] = r sin(2 pi u2) widened to double. |z| <= 6.66.
void box_muller_single(const std::uint32_t* bits, double* out, std::size_t pairs);

namespace detail {
// A double in the open interval (0, 1) from 53 of the 64 bits hi:lo.
inline double unit_interval(std::uint32_t hi, std::uint32_t lo) {
  const std::uint64_t bits = ((static_cast<std::uint64_t>(hi) << 32) | lo) >> 11;
  return (static_cast<double>(bits) + 0.5) * 0x1.0p-53;
}
}  // namespace detail

// A stream of random numbers for one (seed, particle, purpose, step): the
// draw word of the counter advances with every block of four outputs.
class RandomStream {
 public:
  RandomStream(std::uint64_t seed, std::uint64_t particle, Purpose purpose, std::uint32_t step)
      : key_{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)},
        counter_{0u, step, static_cast<std::uint32_t>(particle),
                 static_cast<std::uint32_t>(purpose) ^
                     (static_cast<std::uint32_t>(particle >> 32) << 8)} {}

  // Next 32 uniformly distributed bits.
  std::uint32_t next_u32() {
    if (pos_ == kBuffered) refill();
    return buffer_[pos_++];
  }

  // The next n outputs of next_u32() into out[0..n), whole blocks at a time.
  void fill_u32(std::uint32_t* out, std::size_t n) {
    std::size_t i = 0;
    for (; i < n && pos_ < kBuffered; ++i) out[i] = buffer_[pos_++];
    const std::size_t blocks = (n - i) / 4;
    if (blocks > 0) {
      philox4x32_10_blocks(counter_, key_, out + i, blocks);
      counter_[0] += static_cast<std::uint32_t>(blocks);
      i += 4 * blocks;
    }
    for (; i < n; ++i) out[i] = next_u32();
  }

  // Uniform double in the open interval (0, 1) with 53 random bits.
  double uniform() {
    const std::uint32_t hi = next_u32(), lo = next_u32();
    return detail::unit_interval(hi, lo);
  }

  // Unbiased integer in [0, n) (Lemire's multiply-shift with rejection), n >= 1.
  std::uint32_t below(std::uint32_t n) {
    std::uint64_t m = static_cast<std::uint64_t>(next_u32()) * n;
    std::uint32_t low = static_cast<std::uint32_t>(m);
    if (low < n) {
      const std::uint32_t threshold = static_cast<std::uint32_t>(-n) % n;
      while (low < threshold) {
        m = static_cast<std::uint64_t>(next_u32()) * n;
        low = static_cast<std::uint32_t>(m);
      }
    }
    return static_cast<std::uint32_t>(m >> 32);
  }

  // Standard normal by the Box-Muller transform (both outputs of a pair used in turn: the
  // cosine, then the sine), each pair from two uniform() draws.
  double normal() {
    double z;
    fill_normal(&z, 1);
    return z;
  }

  // The next n outputs of normal() into out[0..n), a vector of pairs at a time: the numbers n
  // calls of normal() give.
  void fill_normal(double* out, std::size_t n) {
    std::size_t i = 0;
    if (n > 0 && has_spare_) {
      out[i++] = spare_;
      has_spare_ = false;
    }
    constexpr std::size_t kPairs = 32;
    std::uint32_t bits[4 * kPairs];
    double z[2 * kPairs];
    while (i < n) {
      const std::size_t pairs = std::min(kPairs, (n - i + 1) / 2);
      fill_u32(bits, 4 * pairs);
      box_muller(bits, z, pairs);
      const std::size_t take = std::min(2 * pairs, n - i);
      std::copy(z, z + take, out + i);
      i += take;
      if (take < 2 * pairs) {
        spare_ = z[2 * pairs - 1];
        has_spare_ = true;
      }
    }
  }

  // n normals in single precision (box_muller_single), a pair from two next_u32() words; an
  // odd n discards its last pair's sine. Independent of fill_normal's spare.
  void fill_normal_single(double* out, std::size_t n) {
    constexpr std::size_t kPairs = 32;
    std::uint32_t bits[2 * kPairs];
    double z[2 * kPairs];
    for (std::size_t i = 0; i < n;) {
      const std::size_t pairs = std::min(kPairs, (n - i + 1) / 2);
      fill_u32(bits, 2 * pairs);
      box_muller_single(bits, z, pairs);
      const std::size_t take = std::min(2 * pairs, n - i);
      std::copy(z, z + take, out + i);
      i += take;
    }
  }

  // Bernoulli draw with probability p.
  bool bernoulli(double p) { return uniform() < p; }

 private:
  static constexpr int kBuffered = 32;  // eight blocks per refill

  void refill() {
    philox4x32_10_blocks(counter_, key_, buffer_, kBuffered / 4);
    counter_[0] += kBuffered / 4;
    pos_ = 0;
  }

  PhiloxKey key_;
  PhiloxCounter counter_;
  std::uint32_t buffer_[kBuffered];
  int pos_ = kBuffered;
  bool has_spare_ = false;
  double spare_ = 0.0;
};

// The streams of a contiguous range of particles at one step: kernels and
// samplers that work on a chunk of particles get one of these.
struct BatchRandom {
  std::uint64_t seed = 0;
  Purpose purpose = Purpose::test;
  std::uint32_t step = 0;
  std::uint64_t first_particle = 0;

  RandomStream stream(std::size_t i) const {
    return RandomStream(seed, first_particle + i, purpose, step);
  }
  // The streams of a second kernel applied at the same step (kernels/kernel_sequence.hpp): the
  // step number with its top bit set, which drivers leave clear (they number steps below 2^31).
  BatchRandom for_second_kernel() const {
    return {seed, purpose, step | 0x80000000u, first_particle};
  }
};

}  // namespace logz
