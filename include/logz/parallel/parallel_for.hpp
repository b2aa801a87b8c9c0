// Threads over fixed-size chunks (parallel/chunk_range.hpp): each chunk writes its own results
// and callers reduce them in chunk order, so the same seed gives bitwise-identical numbers for
// any number of threads. Drivers use run_chunks (parallel/run_chunks.hpp), built on this.
#pragma once

#include <cstddef>
#include <functional>

#include "logz/core/stop_request.hpp"
#include "logz/parallel/chunk_range.hpp"

namespace logz {

// Number of worker threads for a request: 0 means all hardware threads.
int resolve_threads(int requested);

// Calls body(chunk) for every chunk on up to `threads` threads (dynamic
// assignment). If bodies throw, every chunk still runs and the exception of
// the lowest failing chunk is rethrown, whatever the thread count. Chunks
// begun after `stop` is requested (core/stop_request.hpp), or after a body threw
// logz::Stopped (it read a token of its own), throw logz::Stopped without running.
void parallel_for_chunks(std::size_t num_items, std::size_t chunk_size, int threads,
                         const std::function<void(const ChunkRange&)>& body, StopToken stop = {});

}  // namespace logz
