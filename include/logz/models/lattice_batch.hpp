// The particles of one chunk on a lattice (models/torus_lattice.hpp): every particle's site
// values (Ising spins +-1, Potts colours 0..q-1) and its bond sum, the sum over bonds that the
// energy is linear in (Ising: sum of s_i s_j; Potts: number of equal-colour bonds). Kernels
// keep the bond sum up to date, so energies and work increments cost O(1) per particle.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace logz {

template <class Site>
class LatticeBatch {
 public:
  LatticeBatch(std::size_t num_particles, int num_sites)
      : num_sites_(num_sites),
        sites_(num_particles * static_cast<std::size_t>(num_sites), Site{}),
        bond_sums_(num_particles, 0) {}

  std::size_t num_particles() const { return bond_sums_.size(); }
  int num_sites() const { return num_sites_; }
  Site* sites(std::size_t p) { return sites_.data() + p * num_sites_; }
  const Site* sites(std::size_t p) const { return sites_.data() + p * num_sites_; }
  std::int64_t& bond_sum(std::size_t p) { return bond_sums_[p]; }
  std::int64_t bond_sum(std::size_t p) const { return bond_sums_[p]; }
  void copy_particle(const LatticeBatch& from, std::size_t from_p, std::size_t to_p) {
    std::memcpy(sites(to_p), from.sites(from_p),
                static_cast<std::size_t>(num_sites_) * sizeof(Site));
    bond_sums_[to_p] = from.bond_sums_[from_p];
  }
  // The arrays that hold the particles' state, for checkpoints (core/batch_state.hpp).
  template <class F>
  void for_each_state_array(F&& f) {
    f(std::span<Site>(sites_)), f(std::span<std::int64_t>(bond_sums_));
  }

 private:
  int num_sites_;
  std::vector<Site> sites_;
  std::vector<std::int64_t> bond_sums_;
};

// Ising spins (+-1) and Potts colours.
using SpinBatch = LatticeBatch<std::int8_t>;
using PottsBatch = LatticeBatch<std::uint8_t>;

}  // namespace logz
