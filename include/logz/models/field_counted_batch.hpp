// A multi-spin batch (PackedSpinBatch, PackedColourBatch) with each particle's sites in the
// field's value counted (the +1 spins; colour 0), for the field paths' works: the kernels count
// them per lane after their sweeps (kernels/multispin_metropolis.hpp,
// kernels/multispin_potts_metropolis.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace logz {

template <class Packed>
class FieldCountedBatch : public Packed {
 public:
  template <class... Args>
  explicit FieldCountedBatch(std::size_t num_particles, Args... args)
      : Packed(num_particles, args...), field_counts_(num_particles, 0) {}

  std::int64_t& field_count(std::size_t p) { return field_counts_[p]; }
  std::int64_t field_count(std::size_t p) const { return field_counts_[p]; }
  void copy_particle(const FieldCountedBatch& from, std::size_t from_p, std::size_t to_p) {
    Packed::copy_particle(from, from_p, to_p);
    field_counts_[to_p] = from.field_counts_[from_p];
  }
  template <class F>
  void for_each_state_array(F&& f) {
    Packed::for_each_state_array(f);
    f(std::span<std::int64_t>(field_counts_));
  }

 private:
  std::vector<std::int64_t> field_counts_;
};

}  // namespace logz
