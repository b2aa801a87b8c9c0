#include "logz/models/packed_ising.hpp"

#include "logz/models/packed_groups.hpp"

namespace logz {

void PackedIsingModel::sample_base(Batch& batch, const BatchRandom& random) const {
  fill_packed_by_group<SpinBatch>(
      batch, random, [&](SpinBatch& s, const BatchRandom& r) { IsingModel::sample_base(s, r); });
}

void PackedIsingModel::ground_state(Batch& batch, const BatchRandom& random) const {
  fill_packed_by_group<SpinBatch>(
      batch, random, [&](SpinBatch& s, const BatchRandom& r) { IsingModel::ground_state(s, r); });
}

}  // namespace logz
