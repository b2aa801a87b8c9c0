#include "logz/smc/fitted_base.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>

namespace logz {

GaussianBase fit_gaussian_base(const SmcResult& run, double widening) {
  const Eigen::MatrixXd& X = run.particles;
  const auto n = X.cols(), d = X.rows();
  Eigen::VectorXd w(n);
  for (Eigen::Index i = 0; i < n; ++i)
    w(i) = std::exp(run.log_weights[static_cast<std::size_t>(i)]);
  w /= w.sum();
  const Eigen::VectorXd mean = X * w;
  const Eigen::MatrixXd centred = X.colwise() - mean;
  const double norm = 1.0 - w.squaredNorm();
  Eigen::MatrixXd cov = centred * w.asDiagonal() * centred.transpose() / (norm > 0 ? norm : 1.0);
  // A coordinate the particles did not spread keeps a scale.
  const double floor = 1e-12 * std::max(cov.trace() / static_cast<double>(d), 1e-300);
  cov.diagonal() = cov.diagonal().cwiseMax(floor);
  cov *= widening * widening;
  if (Eigen::LLT<Eigen::MatrixXd>(cov).info() != Eigen::Success)
    cov = Eigen::MatrixXd(cov.diagonal().asDiagonal());
  return GaussianBase(mean, cov);
}

bool two_estimates_disagree(double a, double se_a, double b, double se_b) {
  return !(std::abs(a - b) <= 5.0 * std::hypot(se_a, se_b) + 0.1);
}

}  // namespace logz
