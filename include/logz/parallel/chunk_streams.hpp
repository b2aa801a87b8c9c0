// The random streams of one chunk of particles for one stage of a run, handed to callbacks
// (the reverse start of annealing) so that user code never builds stream addresses: the
// driver fixes seed and purpose, the callback only picks substreams 0, 1, ...
#pragma once

#include <cstdint>

#include "logz/parallel/chunk_range.hpp"
#include "logz/random/philox.hpp"

namespace logz {

class ChunkStreams {
 public:
  ChunkStreams(std::uint64_t seed, Purpose purpose, const ChunkRange& range)
      : seed_(seed), purpose_(purpose), range_(range) {}

  // The chunk's particles: global indices range().begin .. range().end.
  const ChunkRange& range() const { return range_; }
  // Substream k of every particle of the chunk (particle i of the batch draws from
  // random(k).stream(i)); different k give independent numbers, the same k the same ones.
  BatchRandom random(std::uint32_t k) const {
    return BatchRandom{seed_, purpose_, k, range_.begin};
  }

 private:
  std::uint64_t seed_;
  Purpose purpose_;
  ChunkRange range_;
};

}  // namespace logz
