// Ctrl-C during a run that calls Python back from the drivers' threads. Python runs its signal
// handlers only in the main thread and only when that thread holds the GIL, which it does not
// while native code runs; so for the length of such a run SIGINT sets a flag instead, and the
// Python callbacks (python_target.cpp) raise KeyboardInterrupt when they see it: the run stops
// at the next call of the user's function in every thread.
#pragma once

namespace logz::python {

class InterruptGuard {
 public:
  InterruptGuard();   // installs the flag-setting SIGINT handler (main thread only)
  ~InterruptGuard();  // restores Python's; a Ctrl-C that came after the last callback is re-raised
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

 private:
  bool installed_ = false;
  void (*previous_)(int) = nullptr;
};

// True once SIGINT arrived during a guarded run.
bool interrupt_requested();

// Raises KeyboardInterrupt (throws pybind11::error_already_set) if interrupt_requested();
// call with the GIL held.
void throw_if_interrupted();

}  // namespace logz::python
