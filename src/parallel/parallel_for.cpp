#include "logz/parallel/parallel_for.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/core/stop_request.hpp"

namespace logz {

std::size_t num_chunks(std::size_t num_items, std::size_t chunk_size) {
  if (chunk_size == 0) fail_argument("logz::num_chunks", "chunk_size", "a positive size");
  return (num_items + chunk_size - 1) / chunk_size;
}

ChunkRange chunk_range(std::size_t chunk, std::size_t num_items, std::size_t chunk_size) {
  const std::size_t begin = chunk * chunk_size;
  return {chunk, begin, std::min(num_items, begin + chunk_size)};
}

int resolve_threads(int requested) {
  if (requested < 0)
    fail_argument("logz::resolve_threads", "threads", "0 (all) or a positive count");
  if (requested > 0) return requested;
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(hw);
}

void parallel_for_chunks(std::size_t num_items, std::size_t chunk_size, int threads,
                         const std::function<void(const ChunkRange&)>& body, StopToken stop) {
  const std::size_t n = num_chunks(num_items, chunk_size);
  const int workers = static_cast<int>(std::min<std::size_t>(resolve_threads(threads), n));
  std::atomic<std::size_t> next{0};
  // Every chunk runs; if several fail, the error of the first chunk in chunk
  // order is rethrown, so the message does not depend on thread timing. Once a
  // stop is requested, through `stop` or by a chunk that threw Stopped (a body that reads a
  // token of its own), the chunks not yet begun fail at once with Stopped.
  std::vector<std::exception_ptr> errors(n);
  std::atomic<bool> stopped{false};
  auto work = [&] {
    for (;;) {
      const std::size_t c = next.fetch_add(1);
      if (c >= n) return;
      try {
        if (stopped.load(std::memory_order_relaxed)) throw Stopped();
        stop.throw_if_requested();
        body(chunk_range(c, num_items, chunk_size));
      } catch (const Stopped&) {
        errors[c] = std::current_exception();
        stopped.store(true, std::memory_order_relaxed);
      } catch (...) {
        errors[c] = std::current_exception();
      }
    }
  };
  if (workers <= 1) {
    work();
  } else {
    std::vector<std::thread> pool;
    pool.reserve(workers - 1);
    for (int t = 1; t < workers; ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
  }
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace logz
