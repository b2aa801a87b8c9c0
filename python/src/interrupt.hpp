// Ctrl-C during a native run. Python runs its signal handlers only in the main thread and only
// when that thread holds the GIL, which it does not while native code runs; so for the length of
// such a run SIGINT requests the process's stop source (core/stop_request.hpp) instead, whose
// token the run is given (InterruptGuard::stop): the drivers throw logz::Stopped at their next
// step, which reaches Python as KeyboardInterrupt. Python callbacks (python_target.cpp) check
// too, raising KeyboardInterrupt at the next call of the user's function.
#pragma once

#include "logz/core/stop_request.hpp"

namespace logz::python {

class InterruptGuard {
 public:
  InterruptGuard();   // clears the stop request and installs the SIGINT handler (main thread only)
  ~InterruptGuard();  // restores Python's; a Ctrl-C that came after the run's last check is
                      // re-raised
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  // The token to give the run (RunContext::stop, EstimatorOptions::stop): Ctrl-C requests it.
  StopToken stop() const { return process_stop_source().token(); }

 private:
  bool installed_ = false;
  void (*previous_)(int) = nullptr;
};

// Raises KeyboardInterrupt (throws pybind11::error_already_set) if a stop was requested; call
// with the GIL held.
void throw_if_interrupted();

}  // namespace logz::python
