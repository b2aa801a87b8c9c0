// The compiled part of the logz Python package (python/logz/__init__.py re-exports it).
#include "bindings.hpp"
#include "logz/version.hpp"

PYBIND11_MODULE(_logz, m) {
  m.doc() = "logz: log partition functions, log-likelihoods and model evidence by Monte Carlo";
  m.attr("__version__") = logz::version();
  logz::python::bind_errors(m);
  logz::python::bind_estimates(m);
  logz::python::bind_mbar(m);
  logz::python::bind_runs(m);
}
