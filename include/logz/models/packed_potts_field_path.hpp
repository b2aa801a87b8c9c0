// The Potts model's field path (models/potts_field_path.hpp) in multi-spin coding, for the
// multi-spin Metropolis kernel (kernels/multispin_potts_metropolis.hpp): the same path, base,
// works and log Z as PottsFieldPath, with the sites of colour 0 counted by the kernel instead of
// site by site; the same base draws, ground states and relabelling particle for particle (each
// group of 64 drawn by PottsFieldPath from the same streams, then packed).
#pragma once

#include <cstddef>
#include <span>

#include "logz/core/annealing_path.hpp"
#include "logz/models/field_counted_batch.hpp"
#include "logz/models/packed_colour_batch.hpp"
#include "logz/models/potts.hpp"
#include "logz/models/potts_field_path.hpp"
#include "logz/random/philox.hpp"

namespace logz {

// PackedColourBatch with each particle's sites of colour 0 counted.
using PackedFieldColourBatch = FieldCountedBatch<PackedColourBatch>;

class PackedPottsFieldPath {
 public:
  using Batch = PackedFieldColourBatch;

  // As PottsFieldPath(model, field) (InvalidArgument naming "field"); the model is held by
  // reference.
  PackedPottsFieldPath(const PottsModel& model, double field) : path_(model, field) {}
  PackedPottsFieldPath(PottsModel&&, double) = delete;

  const PottsModel& model() const { return path_.model(); }
  double field() const { return path_.field(); }
  int num_sites() const { return path_.num_sites(); }
  double coupling() const { return path_.coupling(); }

  // ---- the annealing-path interface (core/annealing_path.hpp), as PottsFieldPath's
  Batch make_batch(std::size_t n) const { return Batch(n, num_sites(), model().num_colours()); }
  void sample_base(Batch& batch, const BatchRandom& random) const;
  double base_log_z() const { return path_.base_log_z(); }
  void work_increment(double t_from, double t_to, const Batch& batch, std::span<double> out) const;
  void trace_energy(const Batch& batch, std::span<double> out) const;
  PottsFieldTarget at(double t) const { return path_.at(t); }

  void ground_state(Batch& batch, const BatchRandom& random) const;
  void relabel_to_colour0(Batch& batch, const BatchRandom& random) const;

 private:
  PottsFieldPath path_;
};

static_assert(AnnealingPath<PackedPottsFieldPath>);

}  // namespace logz
