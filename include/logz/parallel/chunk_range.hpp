// Fixed-size chunks of items (particles, chains): chunk boundaries depend only on the number of
// items and the chunk size, never on the thread count, so per-chunk results reduced in chunk
// order are the same for any number of threads.
#pragma once

#include <cstddef>

namespace logz {

// Items [begin, end) of chunk `index`.
struct ChunkRange {
  std::size_t index = 0;
  std::size_t begin = 0;
  std::size_t end = 0;
  std::size_t size() const { return end - begin; }
};

// The chunks that cover num_items items in pieces of chunk_size (the last may be shorter).
std::size_t num_chunks(std::size_t num_items, std::size_t chunk_size);
ChunkRange chunk_range(std::size_t chunk, std::size_t num_items, std::size_t chunk_size);

}  // namespace logz
