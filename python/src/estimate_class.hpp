// logz.Estimate: one estimate as Python sees it. log_z is log(Z_1/Z_0) for estimates on works
// (logz.estimate, as pymbar reports it) and the target's absolute log Z for the estimates of a
// run (the base's exact log Z_0 added, as the JSON reports it); evidence is always log(Z_1/Z_0).
#pragma once

#include <pybind11/pybind11.h>

#include <string>

#include "logz/core/estimate.hpp"

namespace logz::python {

struct PyEstimate {
  Estimate estimate;
  double base_log_z = 0.0;
};

// x as Python's format(x, ".6g"), for the reprs.
std::string format_number(double x);

// Registers the class (estimates.cpp).
void bind_estimate_class(pybind11::module_& m);

}  // namespace logz::python
