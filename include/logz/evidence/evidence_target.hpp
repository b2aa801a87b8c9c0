// The posterior's unnormalised density prior x likelihood as a continuous target:
// U_1(x) = U_prior(x) - log L(x), with the prior's energy normalised (evidence/prior.hpp). On
// the geometric path from the prior (U_0 = U_prior, log Z_0 = 0) to it, Z_1 / Z_0 is the
// evidence integral p(x) L(x) dx, and the gap U_1 - U_0 = -log L is what SMC reweights by.
#pragma once

#include <Eigen/Core>
#include <memory>

#include "logz/evidence/likelihood.hpp"
#include "logz/evidence/prior.hpp"
#include "logz/models/continuous_target.hpp"

namespace logz {

class EvidenceTarget {
 public:
  // InvalidArgument where the dimensions differ or log_likelihood is empty.
  EvidenceTarget(std::shared_ptr<const Prior> prior, Likelihood likelihood);

  int dim() const { return prior_->dim(); }
  bool has_grad() const { return prior_->has_grad() && likelihood_.has_grad(); }
  void energy(const Eigen::MatrixXd& X, Eigen::VectorXd& e) const;
  // InvalidArgument (naming `grad`) where the prior or the likelihood has no gradient.
  void energy_and_grad(const Eigen::MatrixXd& X, Eigen::VectorXd& e, Eigen::MatrixXd& G) const;
  const LinearConstraints* constraints() const { return prior_->constraints(); }

 private:
  std::shared_ptr<const Prior> prior_;
  Likelihood likelihood_;
};

static_assert(ConstrainedTarget<EvidenceTarget>);

}  // namespace logz
