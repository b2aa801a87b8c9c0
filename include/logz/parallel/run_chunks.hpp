// The one loop of every driver (annealing, tempering, integration, samplers, enumeration):
// fixed chunks of items on a thread pool, one output per chunk handed back in chunk order,
// progress counted per finished chunk. Reducing the outputs in the order returned gives the
// same numbers for any thread count; if bodies throw, every chunk still runs and the
// exception of the lowest failing chunk is rethrown (parallel_for_chunks).
#pragma once

#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "logz/parallel/parallel_for.hpp"

namespace logz {

// Called after each finished chunk with (chunks done, chunks in all). Calls never overlap and
// `done` counts up by one, whichever thread finished the chunk.
using ChunkProgress = std::function<void(std::size_t done, std::size_t total)>;

// What body(chunk) returns.
template <class Body>
using ChunkOutput = std::invoke_result_t<Body&, const ChunkRange&>;

// Calls body(chunk) for every chunk of num_items items in pieces of chunk_size on up to
// `threads` threads (0: all). Returns std::vector<ChunkOutput<Body>> in chunk order, or
// nothing when body returns void. Outputs need not be default-constructible.
template <class Body>
auto run_chunks(std::size_t num_items, std::size_t chunk_size, int threads, Body&& body,
                const ChunkProgress& progress = {}) {
  using Output = ChunkOutput<Body>;
  const std::size_t total = num_chunks(num_items, chunk_size);
  std::mutex progress_mutex;
  std::size_t done = 0;
  auto finished = [&] {
    if (!progress) return;
    std::lock_guard lock(progress_mutex);
    progress(++done, total);
  };
  if constexpr (std::is_void_v<Output>) {
    parallel_for_chunks(num_items, chunk_size, threads, [&](const ChunkRange& c) {
      body(c);
      finished();
    });
  } else {
    std::vector<std::optional<Output>> slots(total);
    parallel_for_chunks(num_items, chunk_size, threads, [&](const ChunkRange& c) {
      slots[c.index].emplace(body(c));
      finished();
    });
    std::vector<Output> outputs;
    outputs.reserve(total);
    for (auto& s : slots) outputs.push_back(std::move(*s));
    return outputs;
  }
}

}  // namespace logz
