// The tilt of the evidence's path (paths/tilted_path.hpp): G(x) = -log L(x), so that the path
// from the prior is U_t = U_prior + t G, prior x L^t, and Z_1 / Z_0 is the evidence integral
// p(x) L(x) dx. The gap U_1 - U_0 that SMC reweights by is G itself, and the prior's energy is
// computed once per evaluation. -log L = +inf (a zero likelihood) gives no weight.
#pragma once

#include <Eigen/Core>

#include "logz/evidence/likelihood.hpp"
#include "logz/models/continuous_target.hpp"

namespace logz {

class LikelihoodTilt {
 public:
  // InvalidArgument where log_likelihood is empty or dim < 1.
  explicit LikelihoodTilt(Likelihood likelihood);

  int dim() const { return likelihood_.dim; }
  bool has_grad() const { return likelihood_.has_grad(); }
  void energy(const Eigen::MatrixXd& X, Eigen::VectorXd& e) const;
  // InvalidArgument (naming `grad`) where the likelihood has no gradient.
  void energy_and_grad(const Eigen::MatrixXd& X, Eigen::VectorXd& e, Eigen::MatrixXd& G) const;
  // G alone (Likelihood::grad where given); InvalidArgument as above.
  void grad(const Eigen::MatrixXd& X, Eigen::MatrixXd& G) const;

 private:
  Likelihood likelihood_;
};

static_assert(ContinuousTarget<LikelihoodTilt>);

}  // namespace logz
