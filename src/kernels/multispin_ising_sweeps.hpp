// The multi-spin Ising sweeps (kernels/multispin_metropolis.hpp) vectorised across groups of 64
// particles: one vector holds the same site's word of several groups, so one pass of the site
// update's bitwise logic serves N x 64 lanes (N = 8 with AVX-512). Dispatched at run time.
//
// Every group draws alone, so its bits do not depend on the vector width, the thread count or
// which groups share a vector: at site visit q of a step, the first kFixedBits words of the
// acceptance comparison are words kFixedBits q .. of random.stream(64 g) (always made), and
// lanes still undecided after them read on in the words of blocks q, kMaxVisits + q,
// 2 kMaxVisits + q, .. of random.stream(64 g + 1) (the first made for every visit, the others
// only when some lane of the vector needs them: counter-based streams allow it).
#pragma once

#include <cstddef>
#include <cstdint>

#include "logz/core/stop_request.hpp"
#include "logz/random/philox.hpp"
#include "multispin_bits.hpp"

namespace logz::multispin {

constexpr int kTailBlocks = (kThresholdBits - kFixedBits) / 2;  // blocks a visit's tail may read

struct IsingSweeps {
  const Visit* visits = nullptr;  // sweep order (reversed: read backwards)
  std::size_t num_sites = 0;
  std::size_t sweeps = 0;
  bool reversed = false;
  Word invert = 0;                  // kAll when K < 0 (count aligned neighbours instead)
  Word self_left = 0, self_up = 0;  // kAll on a 1-wide torus (see multispin_metropolis.cpp)
  const Threshold* hard = nullptr;  // rejectable classes: no anti-aligned neighbour,
  const Threshold* soft = nullptr;  // one anti-aligned neighbour
  // With a field on the +1 spins the classes are (spin, anti-aligned neighbours) instead:
  // field_classes[5 z + a] for a spin z (1: +1) with a = 0..4 anti-aligned neighbours (invert
  // unused: the thresholds carry K's sign), and the +1 spins are counted after the sweeps.
  const Threshold* field_classes = nullptr;
  BatchRandom random;
  StopToken stop;
};

// Site visits one step may make: the tail words' blocks are numbered by Philox's 32-bit counter
// word.
constexpr std::uint64_t kMaxVisits = (std::uint64_t{1} << 32) / kTailBlocks;

// Sweeps the groups of `words` (group-major: group g's num_sites words from g * num_sites) and
// returns how many lanes of the first num_particles changed, over all sites and sweeps; writes
// each particle's anti-aligned bonds after the sweeps (the right and down neighbour of every
// site) to anti_aligned[0, num_particles), and with field_classes its +1 spins to
// up_counts[0, num_particles). Throws Stopped when the stop is requested (checked every sweep
// after the first).
std::uint64_t ising_sweeps(const IsingSweeps& job, Word* words, std::size_t num_particles,
                           std::int64_t* anti_aligned, std::int64_t* up_counts = nullptr);

}  // namespace logz::multispin
