// Filling a multi-spin batch (64 particles per word) group by group from the unpacked model's
// own draws: the packed models start from exactly the states the unpacked ones draw from the
// same streams, particle for particle.
#pragma once

#include <algorithm>
#include <cstddef>

#include "logz/random/philox.hpp"

namespace logz {

// draw(unpacked, random) fills an Unpacked batch of up to 64 particles from the streams of the
// same particles; each group is then packed into `batch` (Packed::pack(from, first)).
template <class Unpacked, class Packed, class Draw>
void fill_packed_by_group(Packed& batch, const BatchRandom& random, Draw&& draw) {
  for (std::size_t first = 0; first < batch.num_particles(); first += Packed::kLanes) {
    Unpacked group(std::min(Packed::kLanes, batch.num_particles() - first), batch.num_sites());
    BatchRandom streams = random;
    streams.first_particle += first;
    draw(group, streams);
    batch.pack(group, first);
  }
}

}  // namespace logz
