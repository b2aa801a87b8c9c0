// The Ising model with its particles in multi-spin coding (models/packed_spin_batch.hpp), for
// the multi-spin Metropolis kernel: the same path, targets, base and ground states as
// IsingModel, and the same initial states particle for particle (each group of 64 is drawn by
// IsingModel from the same streams, then packed).
#pragma once

#include <cstddef>

#include "logz/core/annealing_path.hpp"
#include "logz/models/ising.hpp"
#include "logz/models/packed_spin_batch.hpp"

namespace logz {

class PackedIsingModel : public IsingModel {
 public:
  explicit PackedIsingModel(const IsingModel& model) : IsingModel(model) {}

  using Batch = PackedSpinBatch;
  Batch make_batch(std::size_t num_particles) const { return Batch(num_particles, num_sites()); }
  // Exact draws from the uniform base: the spins IsingModel::sample_base draws.
  void sample_base(Batch& batch, const BatchRandom& random) const;
  // Ground states, as IsingModel::ground_state.
  void ground_state(Batch& batch, const BatchRandom& random) const;
};

static_assert(AnnealingPath<PackedIsingModel>);

}  // namespace logz
