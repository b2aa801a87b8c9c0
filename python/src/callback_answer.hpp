// The answer of a user's Python function for a batch of particles, checked once for every
// caller: logz.Target's energy and gradient (python_target.cpp), logz.evidence's likelihood and
// Custom prior blocks (evidence.cpp). A wrong shape is an InvalidArgument naming the function;
// a value it may not hold is a NumericalError naming the function and the particle.
#pragma once

#include <pybind11/pybind11.h>

#include <Eigen/Core>
#include <functional>
#include <string_view>
#include <vector>

namespace logz::python {

// What the answer holds, and so which values are the user's bug.
enum class AnswerValues {
  energies,       // -log of a density: finite, or +inf outside the support
  log_densities,  // log of a density: finite, or -inf where the density is 0
  gradients,      // finite (except in rows skipped as meaningless: see copy_answer)
};

// The answer as a float64 array of shape (rows,) (cols 0) or (rows, cols), copied row-major into
// out. `function` names the function as errors start: "logz.Target.energy", "logz.evidence:
// log_likelihood". Gradients only: the rows' values of the function they are the gradient of
// (may be null) and the value at which a row's gradient means nothing: -inf for a log density,
// +inf for an energy (a zero density, often an overflow far out on a diverging trajectory). Such
// a row's gradient is set to 0, so that its proposal is rejected, not an error. Where
// `non_finite_rows` is given, the rows holding a value the answer may not hold are listed there
// instead of an error (a gradient called alone: its caller finds those rows' values, then asks
// again with them).
struct RowValues {
  const double* values = nullptr;
  double zero_density = 0.0;  // -inf or +inf
};
void copy_answer(const pybind11::handle& answer, pybind11::ssize_t rows, pybind11::ssize_t cols,
                 std::string_view function, AnswerValues values, double* out,
                 RowValues rows_of = {}, std::vector<pybind11::ssize_t>* non_finite_rows = nullptr);

// The answer of a gradient called alone (the leapfrog's inner steps) at the d x P positions X,
// copied into G (d x P). Where a row holds a non-finite value, `values_at` gives the values of
// the function it is the gradient of at those rows alone, and the rows are checked as copy_answer
// checks them beside their values (`zero_density`: -inf or +inf).
void copy_gradient_alone(
    const pybind11::handle& answer, const Eigen::MatrixXd& X, std::string_view function,
    double zero_density,
    const std::function<void(const Eigen::MatrixXd& rows, Eigen::VectorXd& values)>& values_at,
    Eigen::MatrixXd& G);

}  // namespace logz::python
