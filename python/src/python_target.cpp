#include "python_target.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cmath>
#include <limits>
#include <string>

#include "callback_answer.hpp"
#include "interrupt.hpp"
#include "logz/core/error.hpp"
#include "logz/models/continuous_target.hpp"
#include "logz/models/on_finite_columns.hpp"
#include "particle_arrays.hpp"
#include "worker_gil.hpp"

namespace py = pybind11;

namespace logz::python {

namespace {

// An energy of +inf: a zero density, where the gradient means nothing (copy_answer).
constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

static_assert(ContinuousTarget<PythonTarget>);

PythonTarget::PythonTarget(int dim, py::object energy, py::object grad, py::object energy_and_grad,
                           std::optional<double> exact_log_z)
    : dim_(dim),
      py_(std::make_shared<PythonSide>(std::move(energy), std::move(grad),
                                       std::move(energy_and_grad))),
      exact_log_z_(exact_log_z) {
  if (dim < 1) fail_argument("logz.Target", "dim", "an integer >= 1");
  if (!PyCallable_Check(py_->energy.ptr()))
    fail_argument("logz.Target", "energy", "a function of X, shape (P, dim)");
  if (!py_->grad.is_none() && !PyCallable_Check(py_->grad.ptr()))
    fail_argument("logz.Target", "grad", "a function of X, shape (P, dim), or None");
  if (!py_->energy_and_grad.is_none() && !PyCallable_Check(py_->energy_and_grad.ptr()))
    fail_argument("logz.Target", "energy_and_grad",
                  "a function of X returning (U, dU/dx), or None");
  if (exact_log_z_ && !std::isfinite(*exact_log_z_))
    fail_argument("logz.Target", "exact_log_z", "a finite number");
}

// Each function is asked only at positions with finite coordinates (models/on_finite_columns.hpp).
void PythonTarget::energy(const Eigen::MatrixXd& X, Eigen::VectorXd& e) const {
  on_finite_columns(X, &e, nullptr,
                    [this](const Eigen::MatrixXd& Y, Eigen::VectorXd* out, Eigen::MatrixXd*) {
                      energy_of_finite(Y, *out);
                    });
}

void PythonTarget::energy_and_grad(const Eigen::MatrixXd& X, Eigen::VectorXd& e,
                                   Eigen::MatrixXd& G) const {
  on_finite_columns(X, &e, &G,
                    [this](const Eigen::MatrixXd& Y, Eigen::VectorXd* out, Eigen::MatrixXd* g) {
                      energy_and_grad_of_finite(Y, *out, *g);
                    });
}

void PythonTarget::grad(const Eigen::MatrixXd& X, Eigen::MatrixXd& G) const {
  on_finite_columns(X, nullptr, &G,
                    [this](const Eigen::MatrixXd& Y, Eigen::VectorXd*, Eigen::MatrixXd* g) {
                      grad_of_finite(Y, *g);
                    });
}

void PythonTarget::energy_of_finite(const Eigen::MatrixXd& X, Eigen::VectorXd& e) const {
  e.resize(X.cols());
  const WorkerGil gil;
  const LentParticles particles(py_->particles, X);
  const py::object answer = py_->energy(particles.array());
  copy_answer(answer, X.cols(), 0, "logz.Target.energy", AnswerValues::energies, e.data());
  throw_if_interrupted();  // Ctrl-C stops the run at the next call in every thread
}

void PythonTarget::energy_and_grad_of_finite(const Eigen::MatrixXd& X, Eigen::VectorXd& e,
                                             Eigen::MatrixXd& G) const {
  if (!py_->energy_and_grad.is_none()) {
    e.resize(X.cols());
    G.resize(X.rows(), X.cols());
    const WorkerGil gil;
    const LentParticles particles(py_->particles, X);
    const py::object answer = py_->energy_and_grad(particles.array());
    if (!py::isinstance<py::tuple>(answer) || py::len(answer) != 2)
      fail_argument("logz.Target.energy_and_grad", "return value",
                    "a pair (U of shape (P,), dU/dx of shape (P, dim))");
    const py::tuple pair = answer.cast<py::tuple>();
    copy_answer(pair[0], X.cols(), 0, "logz.Target.energy_and_grad", AnswerValues::energies,
                e.data());
    copy_answer(pair[1], X.cols(), X.rows(), "logz.Target.energy_and_grad", AnswerValues::gradients,
                G.data(), {e.data(), kInf});
    throw_if_interrupted();
    return;
  }
  if (py_->grad.is_none())
    fail_argument("logz.Target", "grad",
                  "a gradient function: the kernel moves particles along dU/dx");
  energy_of_finite(X, e);
  G.resize(X.rows(), X.cols());
  const WorkerGil gil;
  const LentParticles particles(py_->particles, X);
  const py::object answer = py_->grad(particles.array());
  // (P, d) row-major = d x P column-major
  copy_answer(answer, X.cols(), X.rows(), "logz.Target.grad", AnswerValues::gradients, G.data(),
              {e.data(), kInf});
  throw_if_interrupted();
}

void PythonTarget::grad_of_finite(const Eigen::MatrixXd& X, Eigen::MatrixXd& G) const {
  if (!py_->energy_and_grad.is_none() || py_->grad.is_none()) {
    Eigen::VectorXd e;
    energy_and_grad_of_finite(X, e, G);
    return;
  }
  const WorkerGil gil;
  const LentParticles particles(py_->particles, X);
  const py::object answer = py_->grad(particles.array());
  copy_gradient_alone(
      answer, X, "logz.Target.grad", kInf,
      [this](const Eigen::MatrixXd& rows, Eigen::VectorXd& e) { energy_of_finite(rows, e); }, G);
  throw_if_interrupted();
}

void bind_target(py::module_& m) {
  py::class_<PythonTarget>(m, "Target",
                           R"(The user's own model: an unnormalised density exp(-U(x)) on R^dim.

The functions are called once per batch of particles, never per particle.

Parameters
----------
dim : int
    The dimension.
energy : callable
    energy(X), X a float64 array of shape (P, dim), one particle per row (read-only, a copy
    the function may keep); returns U(x) = -log of the unnormalised density for every row,
    shape (P,).
grad : callable, optional
    grad(X), dU/dx for every row, shape (P, dim); needed by the gradient kernels ("hais",
    "hmc"), not by "metropolis".
energy_and_grad : callable, optional
    Both at once as a pair (U, dU/dx); the gradient kernels call it instead of energy and
    grad, once per batch, so work the two share is done once.
exact_log_z : float, optional
    log of the normalising constant where it is known; reported beside the estimates as the
    reference.

Examples
--------

>>> import numpy as np, logz
>>> t = logz.Target(2, lambda X: 0.5 * (X ** 2).sum(axis=1), lambda X: X, exact_log_z=np.log(2 * np.pi))
>>> t.dim
2)")
      .def(py::init<int, py::object, py::object, py::object, std::optional<double>>(),
           py::arg("dim"), py::arg("energy"), py::arg("grad") = py::none(), py::kw_only(),
           py::arg("energy_and_grad") = py::none(), py::arg("exact_log_z") = py::none())
      .def_property_readonly("dim", &PythonTarget::dim, "the dimension of x")
      .def_property_readonly("energy", &PythonTarget::energy_function,
                             "the energy function U(X), as given")
      .def_property_readonly("grad", &PythonTarget::grad_function,
                             "the gradient function dU/dx(X), or None")
      .def_property_readonly("energy_and_grad", &PythonTarget::energy_and_grad_function,
                             "the function giving (U, dU/dx) in one call, or None")
      .def_property_readonly(
          "exact_log_z", &PythonTarget::exact_log_z,
          "the exact log Z where the user gave it (reported as reference_log_z), else None")
      .def("__repr__", [](const PythonTarget& t) {
        return "Target(dim=" + std::to_string(t.dim()) +
               (t.has_grad() ? ", with grad" : ", no grad") + ")";
      });
}

}  // namespace logz::python
