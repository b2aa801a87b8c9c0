#include "logz/evidence/evidence_target.hpp"

#include <utility>

#include "logz/core/error.hpp"

namespace logz {

EvidenceTarget::EvidenceTarget(std::shared_ptr<const Prior> prior, Likelihood likelihood)
    : prior_(std::move(prior)), likelihood_(std::move(likelihood)) {
  if (!prior_) fail_argument("logz::EvidenceTarget", "prior", "a prior");
  if (!likelihood_.log_likelihood)
    fail_argument("logz::EvidenceTarget", "likelihood", "a log-likelihood function");
  if (likelihood_.dim != prior_->dim())
    fail_argument("logz::EvidenceTarget", "likelihood", "the prior's dimension");
}

void EvidenceTarget::energy(const Eigen::MatrixXd& X, Eigen::VectorXd& e) const {
  Eigen::VectorXd log_l;
  prior_->energy(X, e);
  likelihood_.log_likelihood(X, log_l);
  e -= log_l;
}

void EvidenceTarget::energy_and_grad(const Eigen::MatrixXd& X, Eigen::VectorXd& e,
                                     Eigen::MatrixXd& G) const {
  if (!has_grad())
    fail_argument("logz::EvidenceTarget", "grad",
                  "gradients of the prior and the likelihood (for a gradient move)");
  Eigen::VectorXd log_l;
  Eigen::MatrixXd g;
  prior_->energy_and_grad(X, e, G);
  likelihood_.log_likelihood_and_grad(X, log_l, g);
  e -= log_l;
  G -= g;
}

}  // namespace logz
