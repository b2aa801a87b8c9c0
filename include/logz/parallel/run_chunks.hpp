// The one loop of every driver (annealing, tempering, integration, samplers, enumeration):
// fixed chunks of items on a thread pool, one output per chunk handed back in chunk order,
// progress counted per finished chunk. Reducing the outputs in the order returned gives the
// same numbers for any thread count; if bodies throw, every chunk still runs and the
// exception of the lowest failing chunk is rethrown (parallel_for_chunks).
#pragma once

#include <cstddef>
#include <functional>
#include <map>
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
// nothing when body returns void. Outputs need not be default-constructible. Chunks begun after
// `stop` is requested throw logz::Stopped (parallel_for_chunks).
template <class Body>
auto run_chunks(std::size_t num_items, std::size_t chunk_size, int threads, Body&& body,
                const ChunkProgress& progress = {}, StopToken stop = {}) {
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
    parallel_for_chunks(
        num_items, chunk_size, threads,
        [&](const ChunkRange& c) {
          body(c);
          finished();
        },
        stop);
  } else {
    std::vector<std::optional<Output>> slots(total);
    parallel_for_chunks(
        num_items, chunk_size, threads,
        [&](const ChunkRange& c) {
          slots[c.index].emplace(body(c));
          finished();
        },
        stop);
    std::vector<Output> outputs;
    outputs.reserve(total);
    for (auto& s : slots) outputs.push_back(std::move(*s));
    return outputs;
  }
}

// run_chunks, with each output handed to merge(output) in chunk order as soon as every earlier
// chunk has been merged (calls never overlap), instead of all outputs kept to the end: memory
// holds only the outputs of chunks that finished ahead of an earlier one. A reduction in merge
// adds in the same order as a loop over run_chunks' outputs, so it gives the same bits.
template <class Body, class Merge>
void run_chunks_ordered(std::size_t num_items, std::size_t chunk_size, int threads, Body&& body,
                        Merge&& merge, const ChunkProgress& progress = {}, StopToken stop = {}) {
  using Output = ChunkOutput<Body>;
  std::mutex mutex;
  std::map<std::size_t, Output> waiting;  // finished outputs whose turn has not come
  std::size_t next = 0;
  run_chunks(
      num_items, chunk_size, threads,
      [&](const ChunkRange& c) {
        Output out = body(c);
        std::lock_guard lock(mutex);
        waiting.emplace(c.index, std::move(out));
        for (auto it = waiting.begin(); it != waiting.end() && it->first == next;
             it = waiting.erase(it), ++next)
          merge(std::move(it->second));
      },
      progress, stop);
}

}  // namespace logz
