#include "logz/evidence/likelihood_tilt.hpp"

#include <utility>

#include "logz/core/error.hpp"
#include "logz/models/on_finite_columns.hpp"

namespace logz {

LikelihoodTilt::LikelihoodTilt(Likelihood likelihood) : likelihood_(std::move(likelihood)) {
  if (!likelihood_.log_likelihood)
    fail_argument("logz::LikelihoodTilt", "likelihood", "a log-likelihood function");
  if (likelihood_.dim < 1) fail_argument("logz::LikelihoodTilt", "likelihood", "a dimension >= 1");
}

namespace {

void require_gradient(const LikelihoodTilt& tilt) {
  if (!tilt.has_grad())
    fail_argument("logz::LikelihoodTilt", "grad",
                  "a gradient of the likelihood (for a gradient move)");
}

}  // namespace

void LikelihoodTilt::energy(const Eigen::MatrixXd& X, Eigen::VectorXd& e) const {
  on_finite_columns(X, &e, nullptr, [&](const Eigen::MatrixXd& Y, Eigen::VectorXd* out, auto*) {
    likelihood_.log_likelihood(Y, *out);
    *out = -*out;
  });
}

void LikelihoodTilt::energy_and_grad(const Eigen::MatrixXd& X, Eigen::VectorXd& e,
                                     Eigen::MatrixXd& G) const {
  require_gradient(*this);
  on_finite_columns(X, &e, &G,
                    [&](const Eigen::MatrixXd& Y, Eigen::VectorXd* out, Eigen::MatrixXd* g) {
                      likelihood_.log_likelihood_and_grad(Y, *out, *g);
                      *out = -*out;
                      *g = -*g;
                    });
}

void LikelihoodTilt::grad(const Eigen::MatrixXd& X, Eigen::MatrixXd& G) const {
  require_gradient(*this);
  on_finite_columns(X, nullptr, &G, [&](const Eigen::MatrixXd& Y, auto*, Eigen::MatrixXd* g) {
    if (likelihood_.grad) {
      likelihood_.grad(Y, *g);
    } else {
      Eigen::VectorXd values;
      likelihood_.log_likelihood_and_grad(Y, values, *g);
    }
    *g = -*g;
  });
}

}  // namespace logz
