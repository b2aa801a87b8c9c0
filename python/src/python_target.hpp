// logz.Target: the user's own model as Python functions. energy(X) takes the particles as a
// float64 array of shape (P, dim), one particle per row, and returns U = -log of the
// unnormalised density, shape (P,); grad(X) returns dU/dx, shape (P, dim); or
// energy_and_grad(X) returns both at once (one call, shared work). The functions are
// called once per batch of particles, from the drivers' threads with the GIL held for the
// call only. The particles are handed over without a copy (the d x P positions are the
// (P, d) array), read-only.
#pragma once

#include <pybind11/pybind11.h>

#include <Eigen/Core>
#include <optional>

namespace logz::python {

class PythonTarget {
 public:
  PythonTarget(int dim, pybind11::object energy, pybind11::object grad, pybind11::object energy_and_grad,
               std::optional<double> exact_log_z);

  int dim() const { return dim_; }
  bool has_grad() const { return !grad_.is_none() || !energy_and_grad_.is_none(); }
  std::optional<double> exact_log_z() const { return exact_log_z_; }
  const pybind11::object& energy_function() const { return energy_; }
  const pybind11::object& grad_function() const { return grad_; }
  const pybind11::object& energy_and_grad_function() const { return energy_and_grad_; }

  // The continuous-target interface (logz/models/continuous_target.hpp). Errors in the user's
  // functions come back as the Python exception they raised; a wrong shape or a non-finite
  // value as logz.InvalidArgument / logz.NumericalError naming the particle.
  void energy(const Eigen::MatrixXd& X, Eigen::VectorXd& e) const;
  void energy_and_grad(const Eigen::MatrixXd& X, Eigen::VectorXd& e, Eigen::MatrixXd& G) const;

 private:
  int dim_;
  pybind11::object energy_, grad_, energy_and_grad_;
  std::optional<double> exact_log_z_;
};

void bind_target(pybind11::module_& m);  // python_target.cpp: logz.Target

}  // namespace logz::python
