// A Gaussian N(mu, Sigma) as a continuous target and AIS base: energy
// U(x) = (x - mu)^T Sigma^{-1} (x - mu) / 2 (no constant), so that
// log Z = log integral exp(-U) = (d/2) log(2 pi) + (1/2) log det Sigma, with an exact
// sampler x = mu + L z (Sigma = L L^T, z ~ N(0, I)). Isotropic (Sigma = sigma^2 I) or fitted
// to data (sample mean and covariance).
#pragma once

#include <Eigen/Core>
#include <string>

#include "logz/models/continuous_target.hpp"
#include "logz/random/philox.hpp"

namespace logz {

class GaussianBase {
 public:
  // N(mean, sigma^2 I); an empty mean means 0. dim >= 1, sigma > 0 (InvalidArgument).
  static GaussianBase isotropic(int dim, double sigma, const Eigen::VectorXd& mean = {});
  // N(mean, covariance); the covariance must be symmetric positive definite.
  GaussianBase(const Eigen::VectorXd& mean, const Eigen::MatrixXd& covariance);
  // The sample mean and covariance (n - 1 denominator) of `data` (N x d, one point per row),
  // plus `ridge` on the diagonal; N > d is required for a definite covariance. Errors name
  // `source`.
  static GaussianBase fitted(const Eigen::MatrixXd& data, double ridge = 0.0,
                             const std::string& source = "data");

  int dim() const { return static_cast<int>(mean_.size()); }
  void energy(const Eigen::MatrixXd& X, Eigen::VectorXd& e) const;
  void energy_and_grad(const Eigen::MatrixXd& X, Eigen::VectorXd& e, Eigen::MatrixXd& G) const;
  double log_z() const { return log_z_; }

  // Exact draws: column p of X from random.stream(p) (d normals each).
  void sample(Eigen::MatrixXd& X, const BatchRandom& random) const;
  void sample_one(RandomStream& stream, Eigen::Ref<Eigen::VectorXd> x) const;

  const Eigen::VectorXd& mean() const { return mean_; }
  Eigen::MatrixXd covariance() const;
  bool is_isotropic() const { return isotropic_; }
  double sigma() const { return sigma_; }  // isotropic only (else NaN)

 private:
  GaussianBase() = default;

  Eigen::VectorXd mean_;
  Eigen::MatrixXd chol_;      // lower Cholesky factor L (empty when isotropic)
  Eigen::MatrixXd chol_inv_;  // L^{-1}, lower triangular: energies by products, not solves
  bool isotropic_ = false;
  double sigma_ = 0.0;
  double log_z_ = 0.0;
};

static_assert(ContinuousTarget<GaussianBase>);

}  // namespace logz
