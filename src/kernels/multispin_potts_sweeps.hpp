// The multi-spin Potts sweeps (kernels/multispin_potts_metropolis.hpp) vectorised across groups
// of 64 particles: one vector holds the same site's colour plane of several groups (8 with
// AVX-512), so one pass of the site update's bitwise logic serves them all. Dispatched at run
// time.
//
// Every group draws alone, so its bits do not depend on the vector width, the thread count or
// which groups share a vector: every site visit takes the same number of words from
// random.stream(64 g), in order (kFixedRounds for each Bernoulli comparison: a proposal block's
// share and the acceptance; and the proposal's value or offset bits), and the lanes a comparison
// leaves undecided after its kFixedRounds words read on, group by group, in random.stream(64 g +
// 1).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "logz/core/stop_request.hpp"
#include "logz/random/philox.hpp"
#include "multispin_bits.hpp"

namespace logz::multispin {

struct PottsSweeps {
  const Visit* visits = nullptr;  // sweep order (reversed: read backwards)
  std::size_t num_sites = 0;
  std::size_t sweeps = 0;
  bool reversed = false;
  int planes = 1;                       // bits of a colour: 1..8
  std::array<Word, 4> counted{};        // kAll for neighbour slots that are not the site itself
  bool gains = false;                   // K < 0: the classes count gained equal neighbours
  std::array<Threshold, 4> thresholds;  // acceptance of classes d = 1..4
  std::vector<ProposalBlock> blocks;    // the uniform proposal among the other q - 1 colours
  // Or, where offset_bits >= 0 (no field, q - 1 not a power of two), a symmetric proposal
  // without rejection draws: the colour plus an offset mod q, +-1 .. +-2^offset_bits with
  // equal probabilities, from 1 + offset_bits words (a sign and the offset's bits).
  int offset_bits = -1;
  int num_colours = 0;  // q, the offsets' modulus
  // A field on colour 0 (the field path): the proposal goes through colour 0 (from colour 0
  // uniformly to the q - 1 others, from any other colour to 0), and a move's class is (from
  // colour 0 or not, D = equal neighbours lost, -4..4): field_thresholds[9 z + D + 4], z = 1
  // from colour 0 (gains and thresholds unused); the sites of colour 0 are counted after the
  // sweeps.
  bool field = false;
  std::array<Threshold, 18> field_thresholds;
  BatchRandom random;
  StopToken stop;

  // Words of random.stream(64 g) per site visit.
  std::size_t words_per_visit() const;
};

// Sweeps the groups of `words` (group-major: group g's num_sites * planes words from
// g * num_sites * planes, site i's plane b at i * planes + b) and returns how many lanes of the
// first num_particles moved, over all sites and sweeps; writes each particle's equal-colour
// bonds after the sweeps (the right and down neighbour of every site, self-bonds included) to
// equal_bonds[0, num_particles), and with a field its sites of colour 0 to zero_counts[0,
// num_particles). Throws Stopped when the stop is requested (checked every sweep after the
// first).
std::uint64_t potts_sweeps(const PottsSweeps& job, Word* words, std::size_t num_particles,
                           std::int64_t* equal_bonds, std::int64_t* zero_counts = nullptr);

}  // namespace logz::multispin
