#include "logz/evidence/likelihood_tilt.hpp"

#include <utility>

#include "logz/core/error.hpp"

namespace logz {

LikelihoodTilt::LikelihoodTilt(Likelihood likelihood) : likelihood_(std::move(likelihood)) {
  if (!likelihood_.log_likelihood)
    fail_argument("logz::LikelihoodTilt", "likelihood", "a log-likelihood function");
  if (likelihood_.dim < 1) fail_argument("logz::LikelihoodTilt", "likelihood", "a dimension >= 1");
}

void LikelihoodTilt::energy(const Eigen::MatrixXd& X, Eigen::VectorXd& e) const {
  likelihood_.log_likelihood(X, e);
  e = -e;
}

namespace {

void require_gradient(const LikelihoodTilt& tilt) {
  if (!tilt.has_grad())
    fail_argument("logz::LikelihoodTilt", "grad",
                  "a gradient of the likelihood (for a gradient move)");
}

}  // namespace

void LikelihoodTilt::energy_and_grad(const Eigen::MatrixXd& X, Eigen::VectorXd& e,
                                     Eigen::MatrixXd& G) const {
  require_gradient(*this);
  likelihood_.log_likelihood_and_grad(X, e, G);
  e = -e;
  G = -G;
}

void LikelihoodTilt::grad(const Eigen::MatrixXd& X, Eigen::MatrixXd& G) const {
  require_gradient(*this);
  if (likelihood_.grad) {
    likelihood_.grad(X, G);
  } else {
    Eigen::VectorXd values;
    likelihood_.log_likelihood_and_grad(X, values, G);
  }
  G = -G;
}

}  // namespace logz
