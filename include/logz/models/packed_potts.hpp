// The Potts model with its particles in multi-spin coding (models/packed_colour_batch.hpp), for
// the multi-spin Potts Metropolis kernel: the same path, targets, base and ground states as
// PottsModel, and the same initial states particle for particle.
#pragma once

#include <cstddef>

#include "logz/core/annealing_path.hpp"
#include "logz/models/packed_colour_batch.hpp"
#include "logz/models/potts.hpp"

namespace logz {

class PackedPottsModel : public PottsModel {
 public:
  explicit PackedPottsModel(const PottsModel& model) : PottsModel(model) {}

  using Batch = PackedColourBatch;
  Batch make_batch(std::size_t num_particles) const {
    return Batch(num_particles, num_sites(), num_colours());
  }
  // Exact draws from the uniform base: the colours PottsModel::sample_base draws.
  void sample_base(Batch& batch, const BatchRandom& random) const;
  // Ground states, as PottsModel::ground_state.
  void ground_state(Batch& batch, const BatchRandom& random) const;
};

static_assert(AnnealingPath<PackedPottsModel>);

}  // namespace logz
