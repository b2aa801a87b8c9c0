// Ising particles in multi-spin coding: 64 particles share one 64-bit word per site, bit l of
// group g's word for site i being the spin of particle 64 g + l (1: +1, 0: -1). A kernel then
// updates one site of 64 independent particles with a few bitwise operations
// (kernels/multispin_metropolis.hpp). Bond sums are kept per particle, as in LatticeBatch. The
// last group may be partly used: its lanes past num_particles() are never read as particles.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "logz/models/lattice_batch.hpp"

namespace logz {

class PackedSpinBatch {
 public:
  static constexpr std::size_t kLanes = 64;

  PackedSpinBatch(std::size_t num_particles, int num_sites)
      : num_sites_(num_sites),
        words_((num_particles + kLanes - 1) / kLanes * static_cast<std::size_t>(num_sites), 0),
        bond_sums_(num_particles, 0) {}

  std::size_t num_particles() const { return bond_sums_.size(); }
  int num_sites() const { return num_sites_; }
  std::size_t num_groups() const { return (num_particles() + kLanes - 1) / kLanes; }
  // The num_sites() words of group g.
  std::uint64_t* words(std::size_t g) {
    return words_.data() + g * static_cast<std::size_t>(num_sites_);
  }
  const std::uint64_t* words(std::size_t g) const {
    return words_.data() + g * static_cast<std::size_t>(num_sites_);
  }
  // The lanes of group g that hold particles.
  std::uint64_t lane_mask(std::size_t g) const {
    const std::size_t used = num_particles() - g * kLanes;
    return used >= kLanes ? ~std::uint64_t{0} : (std::uint64_t{1} << used) - 1;
  }

  std::int8_t spin(std::size_t p, int i) const {
    return (words(p / kLanes)[i] >> (p % kLanes)) & 1 ? 1 : -1;
  }
  void set_spin(std::size_t p, int i, std::int8_t s) {
    const std::uint64_t bit = std::uint64_t{1} << (p % kLanes);
    std::uint64_t& w = words(p / kLanes)[i];
    w = s > 0 ? (w | bit) : (w & ~bit);
  }
  std::int64_t& bond_sum(std::size_t p) { return bond_sums_[p]; }
  std::int64_t bond_sum(std::size_t p) const { return bond_sums_[p]; }

  // Particles [first, first + from.num_particles()) take the spins and bond sums of `from`.
  void pack(const SpinBatch& from, std::size_t first) {
    for (std::size_t q = 0; q < from.num_particles(); ++q) {
      for (int i = 0; i < num_sites_; ++i) set_spin(first + q, i, from.sites(q)[i]);
      bond_sums_[first + q] = from.bond_sum(q);
    }
  }
  // Particle p as one SpinBatch particle (tests, conversions).
  void unpack(std::size_t p, SpinBatch& to, std::size_t to_p) const {
    for (int i = 0; i < num_sites_; ++i) to.sites(to_p)[i] = spin(p, i);
    to.bond_sum(to_p) = bond_sums_[p];
  }
  void copy_particle(const PackedSpinBatch& from, std::size_t from_p, std::size_t to_p) {
    for (int i = 0; i < num_sites_; ++i) set_spin(to_p, i, from.spin(from_p, i));
    bond_sums_[to_p] = from.bond_sums_[from_p];
  }
  // The arrays that hold the particles' state, for checkpoints (core/batch_state.hpp).
  template <class F>
  void for_each_state_array(F&& f) {
    f(std::span<std::uint64_t>(words_)), f(std::span<std::int64_t>(bond_sums_));
  }

 private:
  int num_sites_;
  std::vector<std::uint64_t> words_;
  std::vector<std::int64_t> bond_sums_;
};

}  // namespace logz
