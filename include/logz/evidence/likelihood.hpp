// A likelihood L(x) for the evidence, given as functions of a batch of parameter vectors
// (d x P, one column per particle): log L of every column, and optionally log L with its
// gradient d log L / dx (d x P). log L may be -inf (zero likelihood: the particle gets no
// weight, a proposal there is rejected); NaN and +inf are the caller's to refuse. The functions
// are asked only at positions whose coordinates are all finite (LikelihoodTilt: a diverged
// leapfrog trajectory's positions get no likelihood and are rejected).
#pragma once

#include <Eigen/Core>
#include <functional>

namespace logz {

struct Likelihood {
  int dim = 0;
  std::function<void(const Eigen::MatrixXd& X, Eigen::VectorXd& log_l)> log_likelihood;
  // Empty: no gradient (gradient-free moves only).
  std::function<void(const Eigen::MatrixXd& X, Eigen::VectorXd& log_l, Eigen::MatrixXd& grad)>
      log_likelihood_and_grad;
  // Optional, with a gradient: d log L / dx alone, for the leapfrog's inner steps where it costs
  // less than log L with it (two functions of a user's). Empty: log_likelihood_and_grad, values
  // dropped.
  std::function<void(const Eigen::MatrixXd& X, Eigen::MatrixXd& grad)> grad;

  bool has_grad() const { return static_cast<bool>(log_likelihood_and_grad); }
};

}  // namespace logz
