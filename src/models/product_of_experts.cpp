#include "logz/models/product_of_experts.hpp"

#include <Eigen/LU>
#include <Eigen/QR>
#include <Eigen/SVD>
#include <cmath>

#include "logz/core/error.hpp"
#include "logz/io/npz.hpp"

namespace logz {

ProductOfExperts::ProductOfExperts(ExpertType type, Eigen::MatrixXd phi, Eigen::VectorXd lambda,
                                   const std::string& source)
    : type_(type), phi_(std::move(phi)), lambda_(std::move(lambda)) {
  const Eigen::Index L = phi_.rows(), d = phi_.cols();
  if (d < 1 || L < d)
    fail_input(source, "Phi", "an L x d matrix with L >= d >= 1 (fewer experts than dimensions is "
                              "not normalisable), got " + std::to_string(L) + " x " + std::to_string(d));
  if (!phi_.allFinite()) fail_input(source, "Phi", "finite values");
  if (lambda_.size() != L)
    fail_input(source, "lambda", "one value per expert (" + std::to_string(L) + "), got " +
                                     std::to_string(lambda_.size()));
  if (!lambda_.allFinite() || (lambda_.array() <= 0.0).any()) fail_input(source, "lambda", "finite values > 0");
  if (L == d) {
    Eigen::PartialPivLU<Eigen::MatrixXd> lu(phi_);
    const Eigen::VectorXd diag = lu.matrixLU().diagonal();
    if ((diag.array() == 0.0).any()) fail_input(source, "Phi", "an invertible square matrix");
    log_abs_det_ = diag.array().abs().log().sum();
    phi_inverse_ = lu.inverse();
    if (type_ == ExpertType::student_t && (lambda_.array() <= 0.5).any())
      fail_input(source, "lambda", "values > 1/2 for complete Student-t experts (else Z is infinite)");
  } else {
    Eigen::JacobiSVD<Eigen::MatrixXd> svd(phi_);
    const Eigen::VectorXd s = svd.singularValues();
    if (!(s(d - 1) > 1e-12 * s(0))) fail_input(source, "Phi", "rank d (its columns are dependent)");
  }
}

ProductOfExperts ProductOfExperts::load(const std::string& path, ExpertType type, const PoeKeys& keys) {
  const io::Array phi = io::read_npz_array(path, keys.filters).to_float64();
  const io::Array lambda = io::read_npz_array(path, keys.lambda).to_float64();
  if (phi.ndim() != 2) fail_input(path, keys.filters, "a 2-D array (L x d), got " + io::shape_to_string(phi.shape));
  if (lambda.ndim() != 1 && !(lambda.ndim() == 2 && lambda.cols() == 1))
    fail_input(path, keys.lambda, "a 1-D array (L), got " + io::shape_to_string(lambda.shape));
  Eigen::MatrixXd P(phi.rows(), phi.cols());
  for (std::size_t i = 0; i < phi.rows(); ++i)
    for (std::size_t j = 0; j < phi.cols(); ++j) P(i, j) = phi.doubles()[i * phi.cols() + j];
  Eigen::VectorXd l = Eigen::Map<const Eigen::VectorXd>(lambda.doubles().data(), static_cast<Eigen::Index>(lambda.size()));
  return ProductOfExperts(type, std::move(P), std::move(l), path);
}

ProductOfExperts ProductOfExperts::random(ExpertType type, int dim, int num_experts, std::uint64_t seed) {
  if (dim < 1 || num_experts < dim)
    fail_argument("logz::ProductOfExperts::random", "num_experts", "at least dim >= 1");
  Eigen::MatrixXd gauss(num_experts, dim);
  Eigen::VectorXd lambda(num_experts);
  for (int l = 0; l < num_experts; ++l) {
    RandomStream s(seed, static_cast<std::uint64_t>(l), Purpose::base_sample, 0);
    for (int j = 0; j < dim; ++j) gauss(l, j) = s.normal();
    const double u = s.uniform();
    lambda(l) = type == ExpertType::laplace ? 1.0 : 0.75 + 1.25 * u;
  }
  // Orthonormal columns (Householder QR, deterministic), scaled so rows have unit mean
  // square length: Phi^T Phi = (L / d) I, as well conditioned as filters can be.
  Eigen::HouseholderQR<Eigen::MatrixXd> qr(gauss);
  Eigen::MatrixXd phi = qr.householderQ() * Eigen::MatrixXd::Identity(num_experts, dim);
  phi *= std::sqrt(static_cast<double>(num_experts) / dim);
  return ProductOfExperts(type, std::move(phi), std::move(lambda), "random parameters");
}

void ProductOfExperts::energy(const Eigen::MatrixXd& X, Eigen::VectorXd& e) const {
  Eigen::MatrixXd U;
  U.noalias() = phi_ * X;
  if (type_ == ExpertType::laplace)
    e.noalias() = (lambda_.transpose() * U.cwiseAbs()).transpose();
  else
    e.noalias() = (lambda_.transpose() * (1.0 + U.array().square()).log().matrix()).transpose();
}

void ProductOfExperts::energy_and_grad(const Eigen::MatrixXd& X, Eigen::VectorXd& e, Eigen::MatrixXd& G) const {
  Eigen::MatrixXd U;
  U.noalias() = phi_ * X;
  // Whole-array expressions (vectorised log and division), then U is overwritten by
  // psi(U) = dE/du and mapped back by the second GEMM.
  if (type_ == ExpertType::laplace) {
    e.noalias() = (lambda_.transpose() * U.cwiseAbs()).transpose();
    U = U.array().sign().colwise() * lambda_.array();
  } else {
    const Eigen::ArrayXXd q = 1.0 + U.array().square();
    e.noalias() = (lambda_.transpose() * q.log().matrix()).transpose();
    U = (2.0 * U.array() / q).colwise() * lambda_.array();
  }
  G.noalias() = phi_.transpose() * U;
}

double ProductOfExperts::expert_log_normaliser(ExpertType type, double lambda) {
  if (type == ExpertType::laplace) {
    if (!(lambda > 0.0 && std::isfinite(lambda)))
      fail_argument("logz::ProductOfExperts::expert_log_normaliser", "lambda", "a finite number > 0");
    return std::log(2.0 / lambda);
  }
  if (!(lambda > 0.5 && std::isfinite(lambda)))
    fail_argument("logz::ProductOfExperts::expert_log_normaliser", "lambda",
                  "a finite number > 1/2 for a Student-t expert");
  return 0.5 * std::log(M_PI) + std::lgamma(lambda - 0.5) - std::lgamma(lambda);
}

std::optional<double> ProductOfExperts::exact_log_z() const {
  if (!is_complete()) return std::nullopt;
  double s = 0.0;
  for (Eigen::Index l = 0; l < lambda_.size(); ++l) s += expert_log_normaliser(type_, lambda_(l));
  return s - log_abs_det_;
}

void ProductOfExperts::sample_exact(Eigen::MatrixXd& X, const BatchRandom& random) const {
  if (!is_complete())
    fail_argument("logz::ProductOfExperts::sample_exact", "Phi", "a complete (square) filter matrix");
  const Eigen::Index L = phi_.rows();
  Eigen::MatrixXd U(L, X.cols());
  for (Eigen::Index p = 0; p < X.cols(); ++p) {
    RandomStream s = random.stream(static_cast<std::size_t>(p));
    for (Eigen::Index l = 0; l < L; ++l) {
      const double lam = lambda_(l);
      if (type_ == ExpertType::laplace) {
        // A Laplace variate of scale 1/lambda: a random sign times an exponential.
        const double mag = -std::log(s.uniform()) / lam;
        U(l, p) = s.uniform() < 0.5 ? -mag : mag;
      } else {
        // (1 + u^2)^(-lambda) is the Student-t density with nu = 2 lambda - 1 degrees of
        // freedom, scaled by 1/sqrt(nu): u = z / sqrt(chi2_nu), chi2_nu = 2 Gamma(nu/2).
        const double nu = 2.0 * lam - 1.0;
        const double z = s.normal();
        // Gamma(a) by Marsaglia-Tsang (a < 1 boosted by u^(1/a)).
        const double a = 0.5 * nu;
        const double a1 = a < 1.0 ? a + 1.0 : a;
        const double dd = a1 - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * dd);
        double g = 0.0;
        for (;;) {
          const double n = s.normal(), v0 = 1.0 + c * n;
          if (v0 <= 0.0) continue;
          const double v = v0 * v0 * v0, uu = s.uniform();
          if (std::log(uu) < 0.5 * n * n + dd - dd * v + dd * std::log(v)) {
            g = dd * v;
            break;
          }
        }
        if (a < 1.0) g *= std::pow(s.uniform(), 1.0 / a);
        U(l, p) = z / std::sqrt(2.0 * g);
      }
    }
  }
  X.noalias() = phi_inverse_ * U;
}

}  // namespace logz
