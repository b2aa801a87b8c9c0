#include "logz/smc/fitted_base.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <limits>

#include "logz/core/error.hpp"

namespace logz {

namespace {

// The particles' weighted mean and covariance (1 / (1 - sum W^2) normalisation), every
// variance at least 1e-12 of the mean one, the whole times widening^2.
void weighted_moments(const SmcResult& run, double widening, Eigen::VectorXd& mean,
                      Eigen::MatrixXd& cov) {
  const Eigen::MatrixXd& X = run.particles;
  const auto n = X.cols(), d = X.rows();
  Eigen::VectorXd w(n);
  for (Eigen::Index i = 0; i < n; ++i)
    w(i) = std::exp(run.log_weights[static_cast<std::size_t>(i)]);
  w /= w.sum();
  mean = X * w;
  const Eigen::MatrixXd centred = X.colwise() - mean;
  const double norm = 1.0 - w.squaredNorm();
  cov = centred * w.asDiagonal() * centred.transpose() / (norm > 0 ? norm : 1.0);
  // A coordinate the particles did not spread keeps a scale.
  const double floor = 1e-12 * std::max(cov.trace() / static_cast<double>(d), 1e-300);
  cov.diagonal() = cov.diagonal().cwiseMax(floor);
  cov *= widening * widening;
}

}  // namespace

GaussianBase fit_gaussian_base(const SmcResult& run, double widening) {
  Eigen::VectorXd mean;
  Eigen::MatrixXd cov;
  weighted_moments(run, widening, mean, cov);
  if (Eigen::LLT<Eigen::MatrixXd>(cov).info() != Eigen::Success)
    cov = Eigen::MatrixXd(cov.diagonal().asDiagonal());
  return GaussianBase(mean, cov);
}

TruncatedGaussianBase fit_truncated_gaussian_base(const SmcResult& run, double widening,
                                                  const Eigen::VectorXd& low,
                                                  const Eigen::VectorXd& high) {
  Eigen::VectorXd mean;
  Eigen::MatrixXd cov;
  weighted_moments(run, widening, mean, cov);
  // The weighted mean of particles inside a box is inside it, up to rounding.
  mean = mean.cwiseMax(low).cwiseMin(high);
  return TruncatedGaussianBase(mean, cov.diagonal().cwiseSqrt(), low, high);
}

bool run_disagrees_with_pilot(double pilot, double se_pilot, double run, double se_run) {
  const double m = 4.0 * std::hypot(se_pilot, se_run) + 0.05, above = run - pilot;
  return !(above >= -m && above <= 2.0 * m);
}

}  // namespace logz
