// Potts particles in multi-spin coding: 64 particles share, per site, one 64-bit word per bit of
// the colour (bit-sliced: plane b holds bit b of every lane's colour), planes() = the bits of
// q - 1. Group g's words for site i are words(g)[i * planes() + b]; bit l is particle 64 g + l.
// Bond sums (the number of equal-colour bonds) are kept per particle, as in LatticeBatch. The
// last group may be partly used: its lanes past num_particles() are never read as particles.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "logz/models/lattice_batch.hpp"

namespace logz {

class PackedColourBatch {
 public:
  static constexpr std::size_t kLanes = 64;

  // num_colours in 2..255 (PottsModel::kMaxColours).
  PackedColourBatch(std::size_t num_particles, int num_sites, int num_colours)
      : num_sites_(num_sites),
        planes_(std::bit_width(static_cast<unsigned>(num_colours - 1))),
        words_((num_particles + kLanes - 1) / kLanes * static_cast<std::size_t>(num_sites) *
                   static_cast<std::size_t>(planes_),
               0),
        bond_sums_(num_particles, 0) {}

  std::size_t num_particles() const { return bond_sums_.size(); }
  int num_sites() const { return num_sites_; }
  int planes() const { return planes_; }
  std::size_t num_groups() const { return (num_particles() + kLanes - 1) / kLanes; }
  std::uint64_t* words(std::size_t g) { return words_.data() + g * group_size(); }
  const std::uint64_t* words(std::size_t g) const { return words_.data() + g * group_size(); }
  // The lanes of group g that hold particles.
  std::uint64_t lane_mask(std::size_t g) const {
    const std::size_t used = num_particles() - g * kLanes;
    return used >= kLanes ? ~std::uint64_t{0} : (std::uint64_t{1} << used) - 1;
  }

  std::uint8_t colour(std::size_t p, int i) const {
    const std::uint64_t* w = words(p / kLanes) + static_cast<std::size_t>(i) * planes_;
    unsigned c = 0;
    for (int b = 0; b < planes_; ++b) c |= static_cast<unsigned>((w[b] >> (p % kLanes)) & 1) << b;
    return static_cast<std::uint8_t>(c);
  }
  void set_colour(std::size_t p, int i, std::uint8_t c) {
    std::uint64_t* w = words(p / kLanes) + static_cast<std::size_t>(i) * planes_;
    const std::uint64_t bit = std::uint64_t{1} << (p % kLanes);
    for (int b = 0; b < planes_; ++b) w[b] = (c >> b) & 1 ? (w[b] | bit) : (w[b] & ~bit);
  }
  std::int64_t& bond_sum(std::size_t p) { return bond_sums_[p]; }
  std::int64_t bond_sum(std::size_t p) const { return bond_sums_[p]; }

  // Particles [first, first + from.num_particles()) take the colours and bond sums of `from`.
  void pack(const PottsBatch& from, std::size_t first) {
    for (std::size_t q = 0; q < from.num_particles(); ++q) {
      for (int i = 0; i < num_sites_; ++i) set_colour(first + q, i, from.sites(q)[i]);
      bond_sums_[first + q] = from.bond_sum(q);
    }
  }
  void copy_particle(const PackedColourBatch& from, std::size_t from_p, std::size_t to_p) {
    for (int i = 0; i < num_sites_; ++i) set_colour(to_p, i, from.colour(from_p, i));
    bond_sums_[to_p] = from.bond_sums_[from_p];
  }
  // The arrays that hold the particles' state, for checkpoints (core/batch_state.hpp).
  template <class F>
  void for_each_state_array(F&& f) {
    f(std::span<std::uint64_t>(words_)), f(std::span<std::int64_t>(bond_sums_));
  }

 private:
  std::size_t group_size() const {
    return static_cast<std::size_t>(num_sites_) * static_cast<std::size_t>(planes_);
  }

  int num_sites_;
  int planes_;
  std::vector<std::uint64_t> words_;
  std::vector<std::int64_t> bond_sums_;
};

}  // namespace logz
