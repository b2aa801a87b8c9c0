// Internal to the continuous models' services (not installed): a continuous model seen through
// one type. The services run every [run] method on GeometricPath<GaussianBase,
// ContinuousModelRef>, compiled once (services/families/continuous_methods.cpp), instead of once
// per model type: each model's unit took 15 to 23 s to compile every method and kernel for its
// own type. A call costs one indirect jump per batch of particles.
#pragma once

#include <Eigen/Core>

#include "logz/models/continuous_target.hpp"

namespace logz::continuous {

// Not owning: the model must outlive the reference (and every path that holds a copy of it).
class ContinuousModelRef {
 public:
  template <ContinuousTarget Model>
  explicit ContinuousModelRef(const Model& model)
      : model_(&model),
        dim_(model.dim()),
        energy_([](const void* m, const Eigen::MatrixXd& X, Eigen::VectorXd& e) {
          static_cast<const Model*>(m)->energy(X, e);
        }),
        energy_and_grad_(
            [](const void* m, const Eigen::MatrixXd& X, Eigen::VectorXd& e, Eigen::MatrixXd& G) {
              static_cast<const Model*>(m)->energy_and_grad(X, e, G);
            }),
        grad_([](const void* m, const Eigen::MatrixXd& X, Eigen::MatrixXd& G) {
          gradient_of(*static_cast<const Model*>(m), X, G);
        }),
        constraints_(constraints_of(model)) {}

  int dim() const { return dim_; }
  void energy(const Eigen::MatrixXd& X, Eigen::VectorXd& e) const { energy_(model_, X, e); }
  void energy_and_grad(const Eigen::MatrixXd& X, Eigen::VectorXd& e, Eigen::MatrixXd& G) const {
    energy_and_grad_(model_, X, e, G);
  }
  // The gradient alone (the leapfrog's inner steps): the model's own where it has one (a
  // logz.Target's grad function), else energy_and_grad's.
  void grad(const Eigen::MatrixXd& X, Eigen::MatrixXd& G) const { grad_(model_, X, G); }
  const LinearConstraints* constraints() const { return constraints_; }

 private:
  const void* model_;
  int dim_;
  void (*energy_)(const void*, const Eigen::MatrixXd&, Eigen::VectorXd&);
  void (*energy_and_grad_)(const void*, const Eigen::MatrixXd&, Eigen::VectorXd&, Eigen::MatrixXd&);
  void (*grad_)(const void*, const Eigen::MatrixXd&, Eigen::MatrixXd&);
  const LinearConstraints* constraints_;
};

static_assert(ConstrainedTarget<ContinuousModelRef>);

}  // namespace logz::continuous
