#include "logz/core/stop_request.hpp"

#include <atomic>

namespace logz {

namespace {

std::atomic<bool> requested{false};
static_assert(std::atomic<bool>::is_always_lock_free, "request_stop must be async-signal-safe");

}  // namespace

Stopped::Stopped() : Error("the run was stopped on request (interrupt)") {}

void request_stop() noexcept { requested.store(true, std::memory_order_relaxed); }
void clear_stop_request() noexcept { requested.store(false, std::memory_order_relaxed); }
bool stop_requested() noexcept { return requested.load(std::memory_order_relaxed); }

void throw_if_stop_requested() {
  if (stop_requested()) throw Stopped();
}

}  // namespace logz
