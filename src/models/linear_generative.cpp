#include "logz/models/linear_generative.hpp"

#include <Eigen/Cholesky>
#include <cmath>

#include "logz/core/error.hpp"
#include "logz/io/npz_eigen.hpp"
#include "logz/math/constants.hpp"

namespace logz {

LinearGenerative::LinearGenerative(Eigen::MatrixXd phi, double sigma_noise, PriorType prior,
                                   const std::string& source)
    : phi_(std::move(phi)), sigma_noise_(sigma_noise), prior_(prior) {
  if (phi_.rows() < 1 || phi_.cols() < 1)
    fail_input(source, "Phi", "an M x L matrix with M, L >= 1");
  if (!phi_.allFinite()) fail_input(source, "Phi", "finite values");
  if (!(std::isfinite(sigma_noise) && sigma_noise > 0.0))
    fail_input(source, "sigma_noise", "a finite number > 0");
}

LinearGenerative LinearGenerative::load(const std::string& path, double sigma_noise,
                                        PriorType prior, const std::string& key) {
  return LinearGenerative(io::read_npz_matrix(path, key, "M x L"), sigma_noise, prior, path);
}

LinearGenerative LinearGenerative::random(int data_dim, int latent_dim, double sigma_noise,
                                          PriorType prior, std::uint64_t seed) {
  if (data_dim < 1 || latent_dim < 1)
    fail_argument("logz::LinearGenerative::random", "data_dim, latent_dim", "at least 1 each");
  Eigen::MatrixXd phi(data_dim, latent_dim);
  const double scale = 1.0 / std::sqrt(static_cast<double>(latent_dim));
  for (int i = 0; i < data_dim; ++i) {
    RandomStream s(seed, static_cast<std::uint64_t>(i), Purpose::base_sample, 0);
    for (int j = 0; j < latent_dim; ++j) phi(i, j) = scale * s.normal();
  }
  return LinearGenerative(std::move(phi), sigma_noise, prior, "random parameters");
}

void LinearGenerative::prior_energy(const Eigen::MatrixXd& A, Eigen::VectorXd& e) const {
  const double L = static_cast<double>(A.rows());
  if (prior_ == PriorType::gaussian)
    e = (0.5 * A.colwise().squaredNorm().array() + 0.5 * L * kLog2Pi).matrix().transpose();
  else
    e = (A.cwiseAbs().colwise().sum().array() + L * kLog2).matrix().transpose();
}

void LinearGenerative::prior_energy_and_grad(const Eigen::MatrixXd& A, Eigen::VectorXd& e,
                                             Eigen::MatrixXd& G) const {
  prior_energy(A, e);
  if (prior_ == PriorType::gaussian)
    G = A;
  else
    G = A.unaryExpr([](double v) { return v > 0.0 ? 1.0 : (v < 0.0 ? -1.0 : 0.0); });
}

std::optional<double> LinearGenerative::exact_log_likelihood(const Eigen::VectorXd& x) const {
  if (prior_ != PriorType::gaussian) return std::nullopt;
  const Eigen::Index M = phi_.rows();
  Eigen::MatrixXd C = phi_ * phi_.transpose();
  C.diagonal().array() += sigma_noise_ * sigma_noise_;
  Eigen::LLT<Eigen::MatrixXd> llt(C);
  const Eigen::VectorXd w = llt.matrixL().solve(x);
  const Eigen::MatrixXd Lm = llt.matrixL();
  return -0.5 * w.squaredNorm() - Lm.diagonal().array().log().sum() -
         0.5 * static_cast<double>(M) * kLog2Pi;
}

void LinearGenerative::sample_data(Eigen::MatrixXd& X, const BatchRandom& random) const {
  const Eigen::Index M = phi_.rows(), L = phi_.cols();
  X.resize(M, X.cols());
  Eigen::VectorXd a(L);
  for (Eigen::Index p = 0; p < X.cols(); ++p) {
    RandomStream s = random.stream(static_cast<std::size_t>(p));
    for (Eigen::Index j = 0; j < L; ++j) {
      if (prior_ == PriorType::gaussian) {
        a(j) = s.normal();
      } else {
        const double mag = -std::log(s.uniform());
        a(j) = s.uniform() < 0.5 ? -mag : mag;
      }
    }
    X.col(p) = phi_ * a;
    for (Eigen::Index i = 0; i < M; ++i) X(i, p) += sigma_noise_ * s.normal();
  }
}

LinearGenerativePosterior::LinearGenerativePosterior(const LinearGenerative& model,
                                                     Eigen::VectorXd x)
    : model_(&model), x_(std::move(x)) {
  if (x_.size() != model.data_dim())
    fail_argument("logz::LinearGenerativePosterior", "x", "one value per data dimension (M)");
  if (!x_.allFinite()) fail_argument("logz::LinearGenerativePosterior", "x", "finite values");
  const double s = model.sigma_noise();
  log_norm_ = 0.5 * static_cast<double>(model.data_dim()) * (kLog2Pi + 2.0 * std::log(s));
}

void LinearGenerativePosterior::energy(const Eigen::MatrixXd& A, Eigen::VectorXd& e) const {
  model_->prior_energy(A, e);
  Eigen::MatrixXd R;
  R.noalias() = model_->phi() * A;
  R = (-R).colwise() + x_;  // residuals x - Phi a
  const double s = model_->sigma_noise();
  e.array() += (0.5 / (s * s)) * R.colwise().squaredNorm().transpose().array() + log_norm_;
}

void LinearGenerativePosterior::energy_and_grad(const Eigen::MatrixXd& A, Eigen::VectorXd& e,
                                                Eigen::MatrixXd& G) const {
  model_->prior_energy_and_grad(A, e, G);
  Eigen::MatrixXd R;
  R.noalias() = model_->phi() * A;
  R = (-R).colwise() + x_;
  const double s = model_->sigma_noise(), prec = 1.0 / (s * s);
  e.array() += (0.5 * prec) * R.colwise().squaredNorm().transpose().array() + log_norm_;
  G.noalias() -= prec * (model_->phi().transpose() * R);
}

}  // namespace logz
