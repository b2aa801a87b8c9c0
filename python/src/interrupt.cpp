#include "interrupt.hpp"

#include <pybind11/pybind11.h>

#include <csignal>
#include <exception>

#include "logz/core/stop_request.hpp"

namespace logz::python {

namespace {

extern "C" void on_sigint(int) { process_stop_source().request(); }

}  // namespace

InterruptGuard::InterruptGuard() {
  process_stop_source().clear();
  const pybind11::module_ threading = pybind11::module_::import("threading");
  if (threading.attr("current_thread")().is(
          threading.attr("main_thread")())) {  // it owns signal handling
    previous_ = std::signal(SIGINT, on_sigint);
    installed_ = previous_ != SIG_ERR;
  }
}

InterruptGuard::~InterruptGuard() {
  if (!installed_) return;
  std::signal(SIGINT, previous_);
  // A Ctrl-C that no check turned into an exception (the run was finishing): Python raises it at
  // its next check. When an exception is on its way out it already carries the interrupt.
  if (process_stop_source().requested() && std::uncaught_exceptions() == 0) PyErr_SetInterrupt();
  process_stop_source().clear();
}

void throw_if_interrupted() {
  if (!process_stop_source().requested()) return;
  PyErr_SetNone(PyExc_KeyboardInterrupt);
  throw pybind11::error_already_set();
}

}  // namespace logz::python
