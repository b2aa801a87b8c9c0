// logz.Target: the user's own model as Python functions. energy(X) takes the particles as a
// float64 array of shape (P, dim), one particle per row, and returns U = -log of the
// unnormalised density, shape (P,); grad(X) returns dU/dx, shape (P, dim); or
// energy_and_grad(X) returns both at once (one call, shared work). The functions are
// called once per batch of particles, from the drivers' threads with the GIL held for the
// call only. The particles are handed over as a read-only copy the functions may keep
// (particle_arrays.hpp: one memcpy into an array of a small pool, no allocation per call).
#pragma once

#include <pybind11/pybind11.h>

#include <Eigen/Core>
#include <memory>
#include <optional>

#include "particle_arrays.hpp"

namespace logz::python {

class PythonTarget {
 public:
  PythonTarget(int dim, pybind11::object energy, pybind11::object grad,
               pybind11::object energy_and_grad, std::optional<double> exact_log_z);

  int dim() const { return dim_; }
  bool has_grad() const { return !py_->grad.is_none() || !py_->energy_and_grad.is_none(); }
  std::optional<double> exact_log_z() const { return exact_log_z_; }
  const pybind11::object& energy_function() const { return py_->energy; }
  const pybind11::object& grad_function() const { return py_->grad; }
  const pybind11::object& energy_and_grad_function() const { return py_->energy_and_grad; }

  // The continuous-target interface (logz/models/continuous_target.hpp). Errors in the user's
  // functions come back as the Python exception they raised; a wrong shape or a non-finite
  // value as logz.InvalidArgument / logz.NumericalError naming the particle.
  void energy(const Eigen::MatrixXd& X, Eigen::VectorXd& e) const;
  void energy_and_grad(const Eigen::MatrixXd& X, Eigen::VectorXd& e, Eigen::MatrixXd& G) const;
  // dU/dx alone (the leapfrog's inner steps): grad without energy where they are two functions
  // (energy only at rows whose gradient is not finite, to check them), energy_and_grad's
  // gradient otherwise.
  void grad(const Eigen::MatrixXd& X, Eigen::MatrixXd& G) const;
  // Positions with a non-finite coordinate are not passed to the user's functions: energy +inf,
  // gradient 0 (logz/models/on_finite_columns.hpp).

 private:
  void energy_of_finite(const Eigen::MatrixXd& X, Eigen::VectorXd& e) const;
  void energy_and_grad_of_finite(const Eigen::MatrixXd& X, Eigen::VectorXd& e,
                                 Eigen::MatrixXd& G) const;
  void grad_of_finite(const Eigen::MatrixXd& X, Eigen::MatrixXd& G) const;

  // The Python objects, shared by the copies of the target that the drivers make without the
  // GIL (a path holds its model by value): a copy, and its end, touch no Python reference
  // count. The last owner is the logz.Target object, which Python frees with the GIL held.
  struct PythonSide {
    PythonSide(pybind11::object e, pybind11::object g, pybind11::object eg)
        : energy(std::move(e)), grad(std::move(g)), energy_and_grad(std::move(eg)) {}
    pybind11::object energy, grad, energy_and_grad;
    ParticleArrays particles;  // used with the GIL held only
  };
  int dim_;
  std::shared_ptr<PythonSide> py_;
  std::optional<double> exact_log_z_;
};

void bind_target(pybind11::module_& m);  // python_target.cpp: logz.Target

}  // namespace logz::python
