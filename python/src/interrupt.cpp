#include "interrupt.hpp"

#include <pybind11/pybind11.h>

#include <atomic>
#include <csignal>

namespace logz::python {

namespace {

std::atomic<bool> interrupted{false};
std::atomic<bool> delivered{false};  // a callback raised KeyboardInterrupt for it

extern "C" void on_sigint(int) { interrupted.store(true); }

}  // namespace

InterruptGuard::InterruptGuard() {
  interrupted.store(false);
  delivered.store(false);
  const pybind11::module_ threading = pybind11::module_::import("threading");
  if (threading.attr("current_thread")().is(threading.attr("main_thread")())) {  // it owns signal handling
    previous_ = std::signal(SIGINT, on_sigint);
    installed_ = previous_ != SIG_ERR;
  }
}

InterruptGuard::~InterruptGuard() {
  if (!installed_) return;
  std::signal(SIGINT, previous_);
  // A Ctrl-C no callback turned into KeyboardInterrupt: Python raises it at its next check.
  if (interrupted.exchange(false) && !delivered.load()) PyErr_SetInterrupt();
}

bool interrupt_requested() { return interrupted.load(std::memory_order_relaxed); }

void throw_if_interrupted() {
  if (!interrupt_requested()) return;
  delivered.store(true);
  PyErr_SetNone(PyExc_KeyboardInterrupt);
  throw pybind11::error_already_set();
}

}  // namespace logz::python
