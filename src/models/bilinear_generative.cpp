#include "logz/models/bilinear_generative.hpp"

#include <cmath>

#include "logz/core/error.hpp"
#include "logz/io/npz_eigen.hpp"
#include "logz/math/constants.hpp"

namespace logz {

BilinearGenerative::BilinearGenerative(Eigen::MatrixXd phi, Eigen::MatrixXd theta,
                                       Eigen::MatrixXd psi, double sigma_noise,
                                       const std::string& source)
    : phi_(std::move(phi)),
      theta_(std::move(theta)),
      psi_(std::move(psi)),
      sigma_noise_(sigma_noise),
      prior_(static_cast<int>(std::max<Eigen::Index>(theta_.cols(), 1)),
             static_cast<int>(std::max<Eigen::Index>(psi_.cols(), 1))) {
  const Eigen::Index L = phi_.cols();
  if (phi_.rows() < 1 || L < 1)
    fail_input(source, "Phi", "an M x L matrix with M, L >= 1, got " + io::matrix_shape(phi_));
  if (theta_.rows() != L || theta_.cols() < 1)
    fail_input(source, "Theta",
               "an L x K_c matrix with L = " + std::to_string(L) +
                   " (the columns of Phi) and K_c >= 1, got " + io::matrix_shape(theta_));
  if (psi_.rows() != L || psi_.cols() < 1)
    fail_input(source, "Psi",
               "an L x K_d matrix with L = " + std::to_string(L) +
                   " (the columns of Phi) and K_d >= 1, got " + io::matrix_shape(psi_));
  if (!phi_.allFinite()) fail_input(source, "Phi", "finite values");
  if (!theta_.allFinite()) fail_input(source, "Theta", "finite values");
  if (!psi_.allFinite()) fail_input(source, "Psi", "finite values");
  if (!(std::isfinite(sigma_noise) && sigma_noise > 0.0))
    fail_input(source, "sigma_noise", "a finite number > 0");
}

BilinearGenerative BilinearGenerative::load(const std::string& path, double sigma_noise,
                                            const BilinearKeys& keys) {
  // One after the other (argument evaluation order is unspecified): errors name the first bad
  // array.
  Eigen::MatrixXd phi = io::read_npz_matrix(path, keys.phi, "M x L");
  Eigen::MatrixXd theta = io::read_npz_matrix(path, keys.theta, "L x K_c");
  Eigen::MatrixXd psi = io::read_npz_matrix(path, keys.psi, "L x K_d");
  return BilinearGenerative(std::move(phi), std::move(theta), std::move(psi), sigma_noise, path);
}

BilinearGenerative BilinearGenerative::random(int data_dim, int basis_dim, int num_c, int num_d,
                                              double sigma_noise, std::uint64_t seed) {
  if (data_dim < 1 || basis_dim < 1 || num_c < 1 || num_d < 1)
    fail_argument("logz::BilinearGenerative::random", "data_dim, basis_dim, num_c, num_d",
                  "at least 1 each");
  Eigen::MatrixXd phi(data_dim, basis_dim), theta(basis_dim, num_c), psi(basis_dim, num_d);
  const double phi_scale = 1.0 / std::sqrt(static_cast<double>(basis_dim));
  for (int i = 0; i < data_dim; ++i) {
    RandomStream s(seed, static_cast<std::uint64_t>(i), Purpose::base_sample, 0);
    for (int j = 0; j < basis_dim; ++j) phi(i, j) = phi_scale * s.normal();
  }
  const double theta_scale = 1.0 / std::sqrt(static_cast<double>(num_c));
  for (int l = 0; l < basis_dim; ++l) {
    RandomStream s(seed, static_cast<std::uint64_t>(l), Purpose::base_sample, 1);
    for (int k = 0; k < num_c; ++k) theta(l, k) = theta_scale * s.normal();
  }
  for (int l = 0; l < basis_dim; ++l) {
    RandomStream s(seed, static_cast<std::uint64_t>(l), Purpose::base_sample, 2);
    for (int k = 0; k < num_d; ++k) psi(l, k) = 2.0 * s.uniform() / num_d;
  }
  return BilinearGenerative(std::move(phi), std::move(theta), std::move(psi), sigma_noise,
                            "random parameters");
}

void BilinearGenerative::coefficients(const Eigen::MatrixXd& Z, Eigen::MatrixXd& A) const {
  if (Z.rows() != latent_dim())
    fail_argument("logz::BilinearGenerative::coefficients", "Z",
                  "one row per latent dimension (K_c + K_d)");
  Eigen::MatrixXd PD;
  A.noalias() = theta_ * Z.topRows(num_c());
  PD.noalias() = psi_ * Z.bottomRows(num_d());
  A.array() *= PD.array();
}

bool BilinearGenerative::coefficients_vanish() const {
  for (Eigen::Index l = 0; l < phi_.cols(); ++l)
    if (!(phi_.col(l).isZero(0.0) || theta_.row(l).isZero(0.0) || psi_.row(l).isZero(0.0)))
      return false;
  return true;
}

std::optional<double> BilinearGenerative::exact_log_likelihood(const Eigen::VectorXd& x) const {
  if (!coefficients_vanish()) return std::nullopt;
  const double s2 = sigma_noise_ * sigma_noise_;
  return -0.5 * x.squaredNorm() / s2 -
         0.5 * static_cast<double>(x.size()) * (kLog2Pi + std::log(s2));
}

void BilinearGenerative::sample_data(Eigen::MatrixXd& X, const BatchRandom& random) const {
  const Eigen::Index M = phi_.rows();
  X.resize(M, X.cols());
  Eigen::MatrixXd z(latent_dim(), 1), a;
  for (Eigen::Index p = 0; p < X.cols(); ++p) {
    RandomStream s = random.stream(static_cast<std::size_t>(p));
    prior_.sample_one(s, z.col(0));
    coefficients(z, a);
    X.col(p) = phi_ * a.col(0);
    for (Eigen::Index i = 0; i < M; ++i) X(i, p) += sigma_noise_ * s.normal();
  }
}

BilinearGenerativePosterior::BilinearGenerativePosterior(const BilinearGenerative& model,
                                                         Eigen::VectorXd x)
    : model_(&model), x_(std::move(x)) {
  if (x_.size() != model.data_dim())
    fail_argument("logz::BilinearGenerativePosterior", "x", "one value per data dimension (M)");
  if (!x_.allFinite()) fail_argument("logz::BilinearGenerativePosterior", "x", "finite values");
  const double s = model.sigma_noise();
  log_norm_ = model.num_c() * kLog2 +
              0.5 * static_cast<double>(model.data_dim()) * (kLog2Pi + 2.0 * std::log(s));
}

void BilinearGenerativePosterior::residuals(const Eigen::MatrixXd& Z, Eigen::MatrixXd& TC,
                                            Eigen::MatrixXd& PD, Eigen::MatrixXd& R) const {
  const BilinearGenerative& m = *model_;
  if (Z.rows() != m.latent_dim())
    fail_argument("logz::BilinearGenerativePosterior", "Z",
                  "one row per latent dimension (K_c + K_d)");
  TC.noalias() = m.theta() * Z.topRows(m.num_c());
  PD.noalias() = m.psi() * Z.bottomRows(m.num_d());
  R.noalias() = m.phi() * (TC.array() * PD.array()).matrix();
  R = (-R).colwise() + x_;  // x - Phi a
}

void BilinearGenerativePosterior::energy(const Eigen::MatrixXd& Z, Eigen::VectorXd& e) const {
  Eigen::MatrixXd TC, PD, R;
  residuals(Z, TC, PD, R);
  model_->prior().energy(Z, e);
  const double s = model_->sigma_noise();
  e.array() += (0.5 / (s * s)) * R.colwise().squaredNorm().transpose().array() + log_norm_;
}

void BilinearGenerativePosterior::energy_and_grad(const Eigen::MatrixXd& Z, Eigen::VectorXd& e,
                                                  Eigen::MatrixXd& G) const {
  const BilinearGenerative& m = *model_;
  Eigen::MatrixXd TC, PD, R;
  residuals(Z, TC, PD, R);
  m.prior().energy_and_grad(Z, e, G);
  const double s = m.sigma_noise(), prec = 1.0 / (s * s);
  e.array() += (0.5 * prec) * R.colwise().squaredNorm().transpose().array() + log_norm_;
  // g = dU/da = -Phi^T r / sigma^2; a = TC .* PD, so dU/dc = Theta^T (g .* PD) and
  // dU/dd = Psi^T (g .* TC).
  Eigen::MatrixXd g;
  g.noalias() = -prec * (m.phi().transpose() * R);
  TC.array() *= g.array();
  PD.array() *= g.array();
  G.topRows(m.num_c()).noalias() += m.theta().transpose() * PD;
  G.bottomRows(m.num_d()).noalias() += m.psi().transpose() * TC;
}

}  // namespace logz
