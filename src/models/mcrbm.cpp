#include "logz/models/mcrbm.hpp"

#include <cmath>

#include "logz/core/error.hpp"
#include "logz/io/npz_eigen.hpp"
#include "logz/random/philox.hpp"

namespace logz {

namespace {

// Column sums of softplus(y) = log(1 + e^y) = max(y, 0) + log(1 + e^{-|y|}): no overflow, and
// vectorised exp and log (log(1 + t) for t = e^{-|y|} in (0, 1] has an absolute error below
// 1e-16, which is all an energy sum needs).
Eigen::VectorXd softplus_column_sums(const Eigen::MatrixXd& y) {
  return (y.array().max(0.0) + (1.0 + (-y.array().abs()).exp()).log())
      .matrix()
      .colwise()
      .sum()
      .transpose();
}

// The same sums, and y overwritten by sigmoid(y) = 1 / (1 + e^-y) from the same exponential
// (t / (1 + t) for y < 0, 1 / (1 + t) otherwise).
Eigen::VectorXd softplus_column_sums_and_sigmoid(Eigen::MatrixXd& y) {
  const Eigen::ArrayXXd t = (-y.array().abs()).exp();
  const Eigen::ArrayXXd one_plus_t = 1.0 + t;
  const Eigen::VectorXd sums =
      (y.array().max(0.0) + one_plus_t.log()).matrix().colwise().sum().transpose();
  y = ((y.array() < 0.0).select(t, 1.0) / one_plus_t).matrix();
  return sums;
}

}  // namespace

McRbm::McRbm(Eigen::MatrixXd P, Eigen::MatrixXd C, Eigen::MatrixXd W, Eigen::VectorXd b_mean,
             Eigen::VectorXd b_cov, Eigen::VectorXd b_vis, double sigma, McRbmNorm norm,
             const std::string& source)
    : P_(std::move(P)),
      C_(std::move(C)),
      W_(std::move(W)),
      b_mean_(std::move(b_mean)),
      b_cov_(std::move(b_cov)),
      b_vis_(std::move(b_vis)),
      sigma_(sigma),
      norm_(norm) {
  const Eigen::Index M = C_.cols(), L = C_.rows();
  if (M < 1)
    fail_input(source, "C", "an L x M matrix with M >= 1 inputs, got " + io::matrix_shape(C_));
  if (P_.rows() != L)
    fail_input(source, "P",
               "an L x K matrix with L = " + std::to_string(L) + " (the rows of C), got " +
                   io::matrix_shape(P_));
  if (W_.cols() != M)
    fail_input(source, "W",
               "a J x M matrix with M = " + std::to_string(M) + " (the columns of C), got " +
                   io::matrix_shape(W_));
  if (b_mean_.size() != W_.rows())
    fail_input(source, "b_m",
               "one bias per mean unit (" + std::to_string(W_.rows()) + "), got " +
                   std::to_string(b_mean_.size()));
  if (b_cov_.size() != P_.cols())
    fail_input(source, "b_c",
               "one bias per covariance unit (" + std::to_string(P_.cols()) + "), got " +
                   std::to_string(b_cov_.size()));
  if (b_vis_.size() != M)
    fail_input(
        source, "b_v",
        "one bias per input (" + std::to_string(M) + "), got " + std::to_string(b_vis_.size()));
  if (!P_.allFinite()) fail_input(source, "P", "finite values");
  if (!C_.allFinite()) fail_input(source, "C", "finite values");
  if (!W_.allFinite()) fail_input(source, "W", "finite values");
  if (!b_mean_.allFinite()) fail_input(source, "b_m", "finite values");
  if (!b_cov_.allFinite()) fail_input(source, "b_c", "finite values");
  if (!b_vis_.allFinite()) fail_input(source, "b_v", "finite values");
  if (!(std::isfinite(sigma_) && sigma_ > 0.0)) fail_input(source, "sigma", "a finite number > 0");
  kappa_ = norm_ == McRbmNorm::sum ? 1.0 : 1.0 / static_cast<double>(M);
}

McRbm McRbm::load(const std::string& path, double sigma, McRbmNorm norm, const McRbmKeys& keys) {
  // One after the other (argument evaluation order is unspecified): errors name the first bad
  // array.
  Eigen::MatrixXd P = io::read_npz_matrix(path, keys.P, "L x K");
  Eigen::MatrixXd C = io::read_npz_matrix(path, keys.C, "L x M");
  Eigen::MatrixXd W = io::read_npz_matrix(path, keys.W, "J x M");
  Eigen::VectorXd b_mean = io::read_npz_vector(path, keys.b_mean, "J");
  Eigen::VectorXd b_cov = io::read_npz_vector(path, keys.b_cov, "K");
  Eigen::VectorXd b_vis = io::read_npz_vector(path, keys.b_vis, "M");
  return McRbm(std::move(P), std::move(C), std::move(W), std::move(b_mean), std::move(b_cov),
               std::move(b_vis), sigma, norm, path);
}

McRbm McRbm::random(int dim, int num_factors, int num_covariance, int num_mean, double sigma,
                    McRbmNorm norm, std::uint64_t seed) {
  if (dim < 1 || num_factors < 0 || num_covariance < 0 || num_mean < 0)
    fail_argument("logz::McRbm::random", "dim, num_factors, num_covariance, num_mean",
                  "dim >= 1, counts >= 0");
  Eigen::MatrixXd C(num_factors, dim), P(num_factors, num_covariance), W(num_mean, dim);
  for (int l = 0; l < num_factors; ++l) {
    RandomStream s(seed, static_cast<std::uint64_t>(l), Purpose::base_sample, 0);
    for (int i = 0; i < dim; ++i) C(l, i) = s.normal();
    C.row(l) /= C.row(l).norm();
  }
  for (int l = 0; l < num_factors; ++l) {
    RandomStream s(seed, static_cast<std::uint64_t>(l), Purpose::base_sample, 1);
    for (int k = 0; k < num_covariance; ++k) P(l, k) = -2.0 * s.uniform();
  }
  const double w_scale = 1.0 / std::sqrt(static_cast<double>(dim));
  for (int j = 0; j < num_mean; ++j) {
    RandomStream s(seed, static_cast<std::uint64_t>(j), Purpose::base_sample, 2);
    for (int i = 0; i < dim; ++i) W(j, i) = w_scale * s.normal();
  }
  Eigen::VectorXd b_cov(num_covariance), b_mean(num_mean), b_vis(dim);
  RandomStream s(seed, 0, Purpose::base_sample, 3);
  for (int k = 0; k < num_covariance; ++k) b_cov(k) = s.normal();
  for (int j = 0; j < num_mean; ++j) b_mean(j) = 0.5 * s.normal();
  for (int i = 0; i < dim; ++i) b_vis(i) = 0.1 * s.normal();
  return McRbm(std::move(P), std::move(C), std::move(W), std::move(b_mean), std::move(b_cov),
               std::move(b_vis), sigma, norm, "random parameters");
}

void McRbm::energy(const Eigen::MatrixXd& X, Eigen::VectorXd& e) const {
  if (X.rows() != dim())
    fail_argument("logz::McRbm::energy", "X", "one row per input dimension (M)");
  const Eigen::Index n = X.cols();
  const Eigen::ArrayXd sq = X.colwise().squaredNorm().transpose();
  e.noalias() = -(X.transpose() * b_vis_);
  e.array() += (0.5 / (sigma_ * sigma_)) * sq;
  if (P_.cols() > 0) {
    Eigen::MatrixXd Y = b_cov_.replicate(1, n);
    if (C_.rows() > 0) {
      Eigen::MatrixXd F;
      F.noalias() = C_ * X;
      // Q = F.^2 / n(x), column by column.
      const Eigen::MatrixXd Q =
          (F.array().square().rowwise() / (kappa_ * sq + 0.5).transpose()).matrix();
      Y.noalias() += 0.5 * (P_.transpose() * Q);
    }
    e -= softplus_column_sums(Y);
  }
  if (W_.rows() > 0) {
    Eigen::MatrixXd Z = b_mean_.replicate(1, n);
    Z.noalias() += W_ * X;
    e -= softplus_column_sums(Z);
  }
}

void McRbm::energy_and_grad(const Eigen::MatrixXd& X, Eigen::VectorXd& e,
                            Eigen::MatrixXd& G) const {
  if (X.rows() != dim())
    fail_argument("logz::McRbm::energy_and_grad", "X", "one row per input dimension (M)");
  const Eigen::Index n = X.cols();
  const Eigen::ArrayXd sq = X.colwise().squaredNorm().transpose();
  e.noalias() = -(X.transpose() * b_vis_);
  e.array() += (0.5 / (sigma_ * sigma_)) * sq;
  // The Gaussian term: x / sigma^2 - b_v.
  G = (X / (sigma_ * sigma_)).colwise() - b_vis_;
  if (P_.cols() > 0) {
    Eigen::MatrixXd Y = b_cov_.replicate(1, n);
    if (C_.rows() > 0) {
      const Eigen::ArrayXd inv_norm = (kappa_ * sq + 0.5).inverse();  // 1 / n(x)
      Eigen::MatrixXd F;
      F.noalias() = C_ * X;
      const Eigen::MatrixXd Q = (F.array().square().rowwise() * inv_norm.transpose()).matrix();
      Y.noalias() += 0.5 * (P_.transpose() * Q);
      // dY_k/dx = sum_l P_lk (F_l C_l^T / n - kappa F_l^2 x / n^2); weighted by S = sigmoid(Y),
      // sum_k S_k dY_k/dx = C^T (R .* F) / n - kappa x sum_l (R .* F.^2) / n^2 with R = P S.
      e -= softplus_column_sums_and_sigmoid(Y);  // Y is now S
      Eigen::MatrixXd R;
      R.noalias() = P_ * Y;
      const Eigen::ArrayXd w =
          (R.array() * Q.array()).colwise().sum().transpose() * inv_norm;  // sum_l R F^2 / n^2
      R.array() *= F.array();
      R.array().rowwise() *= inv_norm.transpose();
      G.noalias() -= C_.transpose() * R;
      G.array() += X.array().rowwise() * (kappa_ * w).transpose();
    } else {
      e -= softplus_column_sums(Y);
    }
  }
  if (W_.rows() > 0) {
    Eigen::MatrixXd Z = b_mean_.replicate(1, n);
    Z.noalias() += W_ * X;
    e -= softplus_column_sums_and_sigmoid(Z);  // Z is now sigmoid(Z)
    G.noalias() -= W_.transpose() * Z;
  }
}

bool McRbm::covariance_term_vanishes() const {
  for (Eigen::Index l = 0; l < C_.rows(); ++l)
    if (!(P_.row(l).isZero(0.0) || C_.row(l).isZero(0.0))) return false;
  return true;
}

}  // namespace logz
