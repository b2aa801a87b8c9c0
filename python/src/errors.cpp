// logz's C++ errors as Python exceptions with the same one-line message: logz.Error (a
// RuntimeError) and below it InvalidArgument and InputError (also ValueErrors: a bad argument
// or bad input) and NumericalError (also an ArithmeticError: a non-finite energy or work). A run
// stopped by Ctrl-C (logz::Stopped) raises KeyboardInterrupt.
#include <Python.h>

#include "bindings.hpp"
#include "logz/core/error.hpp"
#include "logz/core/stop_request.hpp"

namespace py = pybind11;

namespace logz::python {

namespace {

// A new exception class logz.<name> with the given bases (a tuple of classes). The module
// holds it; the handle returned stays valid as long as the module (no destructor at exit).
PyObject* new_exception(py::module_& m, const char* name, py::tuple bases, const char* doc) {
  const std::string qualified = std::string("logz.") + name;
  PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases.ptr(), nullptr);
  if (!type) throw py::error_already_set();
  m.attr(name) = py::reinterpret_steal<py::object>(type);
  return type;
}

}  // namespace

void bind_errors(py::module_& m) {
  py::object builtins = py::module_::import("builtins");
  static PyObject* error = new_exception(m, "Error", py::make_tuple(builtins.attr("RuntimeError")),
                                         "Base of every error logz raises on purpose.");
  static PyObject* invalid = new_exception(
      m, "InvalidArgument", py::make_tuple(py::handle(error), builtins.attr("ValueError")),
      "An argument outside a function's contract (a ValueError).");
  static PyObject* input =
      new_exception(m, "InputError", py::make_tuple(py::handle(error), builtins.attr("ValueError")),
                    "Malformed input: a config, a work array, a weight file (a ValueError).");
  static PyObject* numerical = new_exception(
      m, "NumericalError", py::make_tuple(py::handle(error), builtins.attr("ArithmeticError")),
      "A non-finite energy, work or weight, with where it appeared.");
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Stopped&) {
      PyErr_SetNone(PyExc_KeyboardInterrupt);
    } catch (const InvalidArgument& e) {
      PyErr_SetString(invalid, e.what());
    } catch (const InputError& e) {
      PyErr_SetString(input, e.what());
    } catch (const NumericalError& e) {
      PyErr_SetString(numerical, e.what());
    } catch (const Error& e) {
      PyErr_SetString(error, e.what());
    }
  });
}

}  // namespace logz::python
