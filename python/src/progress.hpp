// Progress for runs whose drivers call back from their threads: a Python callable
// progress(stage, done, total) (or None) as the services' ProgressFn, called with the GIL held.
#pragma once

#include <pybind11/pybind11.h>

#include "logz/services/registry.hpp"

namespace logz::python {

// The ProgressFn (an empty one for None). The Python object is held
// through a shared pointer, so the drivers copy the function without touching Python's
// reference counts; make it and let it go with the GIL held.
ProgressFn progress_function(const pybind11::object& progress);

}  // namespace logz::python
