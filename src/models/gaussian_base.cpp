#include "logz/models/gaussian_base.hpp"

#include <Eigen/Cholesky>
#include <cmath>
#include <limits>

#include "logz/core/error.hpp"
#include "logz/math/constants.hpp"
#include "logz/models/sample_columns.hpp"
#include "math/blas.hpp"

namespace logz {

GaussianBase GaussianBase::isotropic(int dim, double sigma, const Eigen::VectorXd& mean) {
  if (dim < 1) fail_argument("logz::GaussianBase::isotropic", "dim", "at least 1");
  if (!(std::isfinite(sigma) && sigma > 0.0))
    fail_argument("logz::GaussianBase::isotropic", "sigma", "a finite number > 0");
  if (mean.size() != 0 && (mean.size() != dim || !mean.allFinite()))
    fail_argument("logz::GaussianBase::isotropic", "mean", "empty or dim finite values");
  GaussianBase g;
  g.mean_ = mean.size() == 0 ? Eigen::VectorXd::Zero(dim) : mean;
  g.isotropic_ = true;
  g.sigma_ = sigma;
  g.log_z_ = 0.5 * dim * kLog2Pi + dim * std::log(sigma);
  return g;
}

GaussianBase::GaussianBase(const Eigen::VectorXd& mean, const Eigen::MatrixXd& covariance) {
  const Eigen::Index d = mean.size();
  if (d < 1 || !mean.allFinite())
    fail_argument("logz::GaussianBase", "mean", "at least one finite value");
  if (covariance.rows() != d || covariance.cols() != d || !covariance.allFinite())
    fail_argument("logz::GaussianBase", "covariance", "a finite d x d matrix (d = size of mean)");
  if (!covariance.isApprox(covariance.transpose(), 1e-12))
    fail_argument("logz::GaussianBase", "covariance", "a symmetric matrix");
  Eigen::LLT<Eigen::MatrixXd> llt(covariance);
  if (llt.info() != Eigen::Success ||
      !(llt.matrixL().toDenseMatrix().diagonal().array() > 0.0).all())
    fail_argument("logz::GaussianBase", "covariance", "a positive definite matrix");
  mean_ = mean;
  chol_ = llt.matrixL();
  chol_inv_ = chol_.triangularView<Eigen::Lower>().solve(Eigen::MatrixXd::Identity(d, d));
  sigma_ = std::numeric_limits<double>::quiet_NaN();
  log_z_ = 0.5 * static_cast<double>(d) * kLog2Pi + chol_.diagonal().array().log().sum();
}

GaussianBase GaussianBase::fitted(const Eigen::MatrixXd& data, double ridge,
                                  const std::string& source) {
  const Eigen::Index n = data.rows(), d = data.cols();
  if (d < 1 || n <= d)
    fail_input(source, "data",
               "more data points (rows) than dimensions (columns) to fit a Gaussian, got " +
                   std::to_string(n) + " x " + std::to_string(d));
  if (!data.allFinite()) fail_input(source, "data", "finite values");
  if (!(std::isfinite(ridge) && ridge >= 0.0)) fail_input(source, "ridge", "a finite number >= 0");
  const Eigen::VectorXd mean = data.colwise().mean().transpose();
  const Eigen::MatrixXd centred = data.rowwise() - mean.transpose();
  Eigen::MatrixXd cov = (centred.transpose() * centred) / static_cast<double>(n - 1);
  cov.diagonal().array() += ridge;
  cov = 0.5 * (cov + cov.transpose());
  Eigen::LLT<Eigen::MatrixXd> llt(cov);
  if (llt.info() != Eigen::Success)
    fail_input(source, "data", "data whose covariance is positive definite (add a ridge?)");
  return GaussianBase(mean, cov);
}

void GaussianBase::energy(const Eigen::MatrixXd& X, Eigen::VectorXd& e) const {
  if (isotropic_) {  // column by column: no d x P temporary
    const double half_prec = 0.5 / (sigma_ * sigma_);
    e.resize(X.cols());
    for (Eigen::Index p = 0; p < X.cols(); ++p) e(p) = half_prec * (X.col(p) - mean_).squaredNorm();
  } else {
    Eigen::MatrixXd W = X.colwise() - mean_;
    blas::lower_triangular_multiply(chol_inv_, false, W);
    e = 0.5 * W.colwise().squaredNorm().transpose();
  }
}

void GaussianBase::energy_and_grad(const Eigen::MatrixXd& X, Eigen::VectorXd& e,
                                   Eigen::MatrixXd& G) const {
  if (isotropic_) {  // one pass, a column at a time while it is in cache
    const double prec = 1.0 / (sigma_ * sigma_);
    G.resize(X.rows(), X.cols());
    e.resize(X.cols());
    for (Eigen::Index p = 0; p < X.cols(); ++p) {
      G.col(p) = X.col(p) - mean_;
      e(p) = (0.5 * prec) * G.col(p).squaredNorm();
      G.col(p) *= prec;
    }
  } else {
    G = X.colwise() - mean_;
    // W = L^{-1}(x - mu): U = |W|^2 / 2 and dU/dx = L^{-T} W. Products with the inverse factor
    // (dgemm or dtrmm) rather than triangular solves: a fitted base's two solves were a quarter
    // of logz's own time in logz.evidence's refining runs at d = 30.
    blas::lower_triangular_multiply(chol_inv_, false, G);
    e = 0.5 * G.colwise().squaredNorm().transpose();
    blas::lower_triangular_multiply(chol_inv_, true, G);
  }
}

void GaussianBase::sample_one(RandomStream& stream, Eigen::Ref<Eigen::VectorXd> x) const {
  stream.fill_normal(x.data(),
                     static_cast<std::size_t>(x.size()));  // a Ref<VectorXd> is contiguous
  if (isotropic_) {
    x = mean_ + sigma_ * x;
  } else {
    x = mean_ + chol_.triangularView<Eigen::Lower>() * x;
  }
}

void GaussianBase::sample(Eigen::MatrixXd& X, const BatchRandom& random) const {
  sample_columns(*this, X, random);
}

Eigen::MatrixXd GaussianBase::covariance() const {
  if (isotropic_) return sigma_ * sigma_ * Eigen::MatrixXd::Identity(dim(), dim());
  return chol_ * chol_.transpose();
}

}  // namespace logz
