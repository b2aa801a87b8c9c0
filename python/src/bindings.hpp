// The parts of the _logz extension, one concept a file; module.cpp puts them together.
#pragma once

#include <pybind11/pybind11.h>

namespace logz::python {

void bind_errors(pybind11::module_& m);     // errors.cpp: logz.Error, InvalidArgument, ...
void bind_estimates(pybind11::module_& m);  // estimates.cpp: Estimate, estimate, ais, bar, ...
void bind_mbar(pybind11::module_& m);       // mbar.cpp: mbar on pymbar's u_kn and N_k
void bind_runs(pybind11::module_& m);       // runs.cpp: run(config) -> Result
void bind_anneal(pybind11::module_& m);     // anneal.cpp: Target and the annealing of one
void bind_evidence(pybind11::module_& m);   // evidence.cpp: _evidence, the evidence by SMC

}  // namespace logz::python
