#include "logz/models/gaussian_mixture.hpp"

#include <Eigen/Cholesky>
#include <cmath>
#include <limits>
#include <string>

#include "logz/core/error.hpp"
#include "logz/math/constants.hpp"
#include "logz/math/log_sum_exp.hpp"
#include "logz/models/sample_columns.hpp"

namespace logz {

GaussianMixture::GaussianMixture(std::vector<double> weights, std::vector<Eigen::VectorXd> means,
                                 std::vector<Eigen::MatrixXd> covariances,
                                 const std::string& source)
    : weights_(std::move(weights)), means_(std::move(means)), covariances_(std::move(covariances)) {
  const std::size_t m = weights_.size();
  if (m == 0) fail_argument(source, "weights", "at least one component");
  if (means_.size() != m)
    fail_argument(source, "means", "one mean per weight (" + std::to_string(m) + ")");
  if (covariances_.size() != m)
    fail_argument(source, "covariances", "one covariance per weight (" + std::to_string(m) + ")");
  const Eigen::Index d = means_.front().size();
  if (d < 1) fail_argument(source, "means", "vectors of at least one value");
  for (std::size_t j = 0; j < m; ++j) {
    const std::string which = " of component " + std::to_string(j);
    if (!(std::isfinite(weights_[j]) && weights_[j] > 0.0))
      fail_argument(source, "weights", "finite masses > 0 (component " + std::to_string(j) + ")");
    if (means_[j].size() != d || !means_[j].allFinite())
      fail_argument(source, "means", std::to_string(d) + " finite values" + which);
    const Eigen::MatrixXd& c = covariances_[j];
    if (c.rows() != d || c.cols() != d || !c.allFinite())
      fail_argument(
          source, "covariances",
          "a finite " + std::to_string(d) + " x " + std::to_string(d) + " matrix" + which);
    if (!c.isApprox(c.transpose(), 1e-12))
      fail_argument(source, "covariances", "a symmetric matrix" + which);
    Eigen::LLT<Eigen::MatrixXd> llt(c);
    const Eigen::MatrixXd L = llt.matrixL();
    if (llt.info() != Eigen::Success || !(L.diagonal().array() > 0.0).all() || !L.allFinite())
      fail_argument(source, "covariances", "a positive definite matrix" + which);
    chol_.push_back(L);
    // log w_j - (1/2) log det(2 pi Sigma_j), with log det Sigma_j = 2 sum log diag L_j.
    log_norm_.push_back(std::log(weights_[j]) - 0.5 * static_cast<double>(d) * kLog2Pi -
                        L.diagonal().array().log().sum());
  }
  std::vector<double> log_w;
  double total = 0.0;
  for (double w : weights_) log_w.push_back(std::log(w)), total += w;
  log_z_ = log_sum_exp(log_w);
  double acc = 0.0;
  for (double w : weights_) cumulative_.push_back(acc += w / total);
  cumulative_.back() = 1.0;
}

GaussianMixture GaussianMixture::rts_fig2() {
  constexpr int d = 10;
  return GaussianMixture({3.0, 7.0},
                         {Eigen::VectorXd::Constant(d, -2.0), Eigen::VectorXd::Constant(d, 2.0)},
                         {Eigen::MatrixXd::Identity(d, d), 0.5 * Eigen::MatrixXd::Identity(d, d)});
}

void GaussianMixture::component_terms(const Eigen::MatrixXd& X, Eigen::MatrixXd& a,
                                      std::vector<Eigen::MatrixXd>* S) const {
  const Eigen::Index m = num_components();
  a.resize(m, X.cols());
  if (S) S->resize(static_cast<std::size_t>(m));
  Eigen::MatrixXd W;
  for (Eigen::Index j = 0; j < m; ++j) {
    const auto& L = chol_[static_cast<std::size_t>(j)];
    // W = L^{-1}(x - mu): the quadratic form is |W|^2 and Sigma^{-1}(x - mu) = L^{-T} W.
    W = X.colwise() - means_[static_cast<std::size_t>(j)];
    L.triangularView<Eigen::Lower>().solveInPlace(W);
    a.row(j) =
        (log_norm_[static_cast<std::size_t>(j)] - 0.5 * W.colwise().squaredNorm().array()).matrix();
    if (S) {
      L.triangularView<Eigen::Lower>().transpose().solveInPlace(W);
      (*S)[static_cast<std::size_t>(j)] = W;
    }
  }
}

void GaussianMixture::energy(const Eigen::MatrixXd& X, Eigen::VectorXd& e) const {
  Eigen::MatrixXd a;
  component_terms(X, a, nullptr);
  e.resize(X.cols());
  for (Eigen::Index p = 0; p < X.cols(); ++p) {
    // -log sum_j exp(a_j), shifted by max_j a_j so no term overflows or all underflow.
    const double top = a.col(p).maxCoeff();
    e(p) = std::isfinite(top) ? -(top + std::log((a.col(p).array() - top).exp().sum())) : -top;
  }
}

void GaussianMixture::energy_and_grad(const Eigen::MatrixXd& X, Eigen::VectorXd& e,
                                      Eigen::MatrixXd& G) const {
  Eigen::MatrixXd a;
  std::vector<Eigen::MatrixXd> S;
  component_terms(X, a, &S);
  e.resize(X.cols());
  G.setZero(X.rows(), X.cols());
  const Eigen::Index m = num_components();
  for (Eigen::Index p = 0; p < X.cols(); ++p) {
    const double top = a.col(p).maxCoeff();
    if (!std::isfinite(top)) {
      e(p) = -top;
      G.col(p).setConstant(std::numeric_limits<double>::quiet_NaN());
      continue;
    }
    // Responsibilities r_j = exp(a_j - top) / sum: the shift cancels in the ratio.
    const Eigen::ArrayXd r = (a.col(p).array() - top).exp();
    const double sum = r.sum();
    e(p) = -(top + std::log(sum));
    for (Eigen::Index j = 0; j < m; ++j)
      G.col(p) += (r(j) / sum) * S[static_cast<std::size_t>(j)].col(p);
  }
}

void GaussianMixture::sample_one(RandomStream& stream, Eigen::Ref<Eigen::VectorXd> x) const {
  const double u = stream.uniform();
  std::size_t j = 0;
  while (j + 1 < cumulative_.size() && u >= cumulative_[j]) ++j;
  for (Eigen::Index i = 0; i < x.size(); ++i) x(i) = stream.normal();
  x = means_[j] + chol_[j].triangularView<Eigen::Lower>() * x;
}

void GaussianMixture::sample(Eigen::MatrixXd& X, const BatchRandom& random) const {
  sample_columns(*this, X, random);
}

}  // namespace logz
