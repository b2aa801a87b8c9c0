// Stopping a run early on request (Ctrl-C, SIGTERM). A front end owns a StopSource (the process's
// signal-handled one, process_stop_source(), whose request() is async-signal-safe) and passes
// its token into the run (RunContext::stop, services/registry.hpp); the drivers take the token
// from their options and check it between steps (anneal_step and tempering_step every step,
// run_chunks before every chunk, the lattice kernels every 2^20 site updates or every sweep of a
// long step), throwing logz::Stopped, so a run stops within one step of its slowest chunk.
// Library code reads only the token it was given: two runs given tokens of different sources
// stop independently, and a default token never stops.
#pragma once

#include <atomic>

#include "logz/core/error.hpp"

namespace logz {

// A run ended early because a stop was requested; not an error of the input.
class Stopped : public Error {
 public:
  Stopped();
};

// What a run reads: whether its source was asked to stop. Cheap to copy (a pointer); the source
// must outlive the run. A default token never stops.
class StopToken {
 public:
  StopToken() = default;
  explicit StopToken(const std::atomic<bool>* flag) : flag_(flag) {}

  bool requested() const noexcept {
    return flag_ != nullptr && flag_->load(std::memory_order_relaxed);
  }
  // Throws Stopped if requested().
  void throw_if_requested() const {
    if (requested()) throw Stopped();
  }

 private:
  const std::atomic<bool>* flag_ = nullptr;
};

// Owns a stop request and hands out tokens that read it.
class StopSource {
 public:
  StopSource() = default;
  StopSource(const StopSource&) = delete;
  StopSource& operator=(const StopSource&) = delete;

  void request() noexcept { requested_.store(true, std::memory_order_relaxed); }  // signal-safe
  void clear() noexcept { requested_.store(false, std::memory_order_relaxed); }   // before a run
  bool requested() const noexcept { return requested_.load(std::memory_order_relaxed); }
  StopToken token() const noexcept { return StopToken(&requested_); }

 private:
  static_assert(std::atomic<bool>::is_always_lock_free, "request() must be async-signal-safe");
  std::atomic<bool> requested_{false};
};

// The process's source, for front ends alone: their SIGINT/SIGTERM handlers request it and they
// pass its token into the runs they start (signals are process-wide). Library code never reads it.
StopSource& process_stop_source() noexcept;

}  // namespace logz
