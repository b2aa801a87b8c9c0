// The unnormalised posterior prior(x) L(x) as a target, U = -log p(x) - log L(x): its log Z is
// the log evidence. The evidence's refining run (run_evidence.hpp) anneals to it from a Gaussian
// fitted to the first run's particles (truncated to the prior's box, where it has one). Copies
// share the prior's blocks and the likelihood's functions.
#pragma once

#include <Eigen/Core>
#include <utility>

#include "logz/evidence/likelihood_tilt.hpp"
#include "logz/evidence/prior.hpp"
#include "logz/models/continuous_target.hpp"

namespace logz {

class PosteriorTarget {
 public:
  PosteriorTarget(Prior prior, LikelihoodTilt tilt)
      : prior_(std::move(prior)), tilt_(std::move(tilt)) {}

  int dim() const { return prior_.dim(); }
  void energy(const Eigen::MatrixXd& X, Eigen::VectorXd& e) const {
    Eigen::VectorXd g;
    prior_.energy(X, e);
    tilt_.energy(X, g);
    e += g;
  }
  void energy_and_grad(const Eigen::MatrixXd& X, Eigen::VectorXd& e, Eigen::MatrixXd& G) const {
    Eigen::VectorXd g;
    Eigen::MatrixXd dg;
    prior_.energy_and_grad(X, e, G);
    tilt_.energy_and_grad(X, g, dg);
    e += g;
    G += dg;
  }
  void grad(const Eigen::MatrixXd& X, Eigen::MatrixXd& G) const {
    Eigen::VectorXd e;
    Eigen::MatrixXd dg;
    prior_.energy_and_grad(X, e, G);
    tilt_.grad(X, dg);
    G += dg;
  }
  // The prior's box, where it has one.
  const LinearConstraints* constraints() const { return prior_.constraints(); }

 private:
  Prior prior_;
  LikelihoodTilt tilt_;
};

static_assert(ContinuousTarget<PosteriorTarget>);

}  // namespace logz
