// Stopping a run early on request (Ctrl-C, SIGTERM): a front end calls request_stop(), which is
// async-signal-safe, from its signal handler; the drivers check between steps (anneal_step and
// tempering_step every step, run_chunks before every chunk, the lattice kernels every 2^20 site
// updates or every sweep of a long step) and throw logz::Stopped, so a run
// stops within one step of its slowest chunk. The request is process-wide, as signals are.
#pragma once

#include "logz/core/error.hpp"

namespace logz {

// A run ended early because a stop was requested; not an error of the input.
class Stopped : public Error {
 public:
  Stopped();
};

void request_stop() noexcept;        // async-signal-safe
void clear_stop_request() noexcept;  // before a new run
bool stop_requested() noexcept;
// Throws Stopped if stop_requested().
void throw_if_stop_requested();

}  // namespace logz
