// The compiled part of the logz Python package (python/logz/__init__.py re-exports it).
#include <pybind11/numpy.h>

#include "bindings.hpp"
#include "logz/version.hpp"

PYBIND11_MODULE(_logz, m) {
  m.doc() = "logz: log partition functions, log-likelihoods and model evidence by Monte Carlo";
  m.attr("__version__") = logz::version();
  // pybind11 looks numpy's C API up once, into function-local statics, on first use. Done here,
  // in the importing thread: a first use from a driver's thread (a Target's batch of particles)
  // would import numpy under a static's guard while another thread waits on it holding the GIL.
  pybind11::array_t<double> warm_up(1);
  logz::python::bind_errors(m);
  logz::python::bind_estimates(m);
  logz::python::bind_mbar(m);
  logz::python::bind_runs(m);
  logz::python::bind_anneal(m);
  logz::python::bind_evidence(m);
}
