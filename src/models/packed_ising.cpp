#include "logz/models/packed_ising.hpp"

#include <algorithm>

namespace logz {

namespace {

// Fills the packed batch group by group: draw(spins, random) puts a group's particles into an
// unpacked batch from the streams of the same particles.
template <class Draw>
void fill_by_group(PackedSpinBatch& batch, const BatchRandom& random, Draw&& draw) {
  for (std::size_t first = 0; first < batch.num_particles(); first += PackedSpinBatch::kLanes) {
    SpinBatch spins(std::min(PackedSpinBatch::kLanes, batch.num_particles() - first), batch.num_sites());
    BatchRandom group = random;
    group.first_particle += first;
    draw(spins, group);
    batch.pack(spins, first);
  }
}

}  // namespace

void PackedIsingModel::sample_base(Batch& batch, const BatchRandom& random) const {
  fill_by_group(batch, random, [&](SpinBatch& s, const BatchRandom& r) { IsingModel::sample_base(s, r); });
}

void PackedIsingModel::ground_state(Batch& batch, const BatchRandom& random) const {
  fill_by_group(batch, random, [&](SpinBatch& s, const BatchRandom& r) { IsingModel::ground_state(s, r); });
}

}  // namespace logz
