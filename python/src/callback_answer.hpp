// The answer of a user's Python function for a batch of particles, checked once for every
// caller: logz.Target's energy and gradient (python_target.cpp), logz.evidence's likelihood and
// Custom prior blocks (evidence.cpp). A wrong shape is an InvalidArgument naming the function;
// a value it may not hold is a NumericalError naming the function and the particle.
#pragma once

#include <pybind11/pybind11.h>

#include <string_view>

namespace logz::python {

// What the answer holds, and so which values are the user's bug.
enum class AnswerValues {
  energies,       // -log of a density: finite, or +inf outside the support
  log_densities,  // log of a density: finite, or -inf where the density is 0
  gradients,      // finite (except in rows skipped as meaningless: see copy_answer)
};

// The answer as a float64 array of shape (rows,) (cols 0) or (rows, cols), copied row-major into
// out. `function` names the function as errors start: "logz.Target.energy", "logz.evidence:
// log_likelihood". row_log_densities (gradients only, may be null): the rows' log densities;
// where one is -inf (a zero density, often an overflow far out on a diverging trajectory) the
// row's gradient means nothing and is set to 0, so that such a proposal is rejected, not an error.
void copy_answer(const pybind11::handle& answer, pybind11::ssize_t rows, pybind11::ssize_t cols,
                 std::string_view function, AnswerValues values, double* out,
                 const double* row_log_densities = nullptr);

}  // namespace logz::python
