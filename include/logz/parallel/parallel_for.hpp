// Threads over fixed-size particle chunks. Work is split into chunks whose
// boundaries depend only on the problem size, never on the thread count; each
// chunk writes its own results and callers reduce them in chunk order, so the
// same seed gives bitwise-identical numbers for any number of threads.
#pragma once

#include <cstddef>
#include <functional>

namespace logz {

// Particles [begin, end) of one chunk.
struct ChunkRange {
  std::size_t index = 0;
  std::size_t begin = 0;
  std::size_t end = 0;
  std::size_t size() const { return end - begin; }
};

// The chunks that cover num_items items in pieces of chunk_size (the last may be shorter).
std::size_t num_chunks(std::size_t num_items, std::size_t chunk_size);
ChunkRange chunk_range(std::size_t chunk, std::size_t num_items, std::size_t chunk_size);

// Number of worker threads for a request: 0 means all hardware threads.
int resolve_threads(int requested);

// Calls body(chunk) for every chunk on up to `threads` threads (dynamic
// assignment). If bodies throw, every chunk still runs and the exception of
// the lowest failing chunk is rethrown, whatever the thread count.
void parallel_for_chunks(std::size_t num_items, std::size_t chunk_size, int threads,
                         const std::function<void(const ChunkRange&)>& body);

}  // namespace logz
