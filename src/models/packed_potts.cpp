#include "logz/models/packed_potts.hpp"

#include "logz/models/packed_groups.hpp"

namespace logz {

void PackedPottsModel::sample_base(Batch& batch, const BatchRandom& random) const {
  fill_packed_by_group<PottsBatch>(
      batch, random, [&](PottsBatch& s, const BatchRandom& r) { PottsModel::sample_base(s, r); });
}

void PackedPottsModel::ground_state(Batch& batch, const BatchRandom& random) const {
  fill_packed_by_group<PottsBatch>(
      batch, random, [&](PottsBatch& s, const BatchRandom& r) { PottsModel::ground_state(s, r); });
}

}  // namespace logz
