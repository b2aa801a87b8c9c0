#include "logz/models/product_of_experts.hpp"

#include <Eigen/LU>
#include <Eigen/QR>
#include <Eigen/SVD>
#include <cmath>
#include <type_traits>

#include "logz/core/error.hpp"
#include "logz/io/npz_eigen.hpp"
#include "models/expert_functions.hpp"
#include "models/filter_products.hpp"

namespace logz {

namespace {

// m with zero rows appended to whole vectors of any x86 target: 8 doubles, 16 floats.
template <class M>
M padded_rows(const M& m) {
  constexpr Eigen::Index pad = sizeof(typename M::Scalar) == sizeof(double) ? 8 : 16;
  M p = M::Zero((m.rows() + pad - 1) / pad * pad, m.cols());
  p.topRows(m.rows()) = m;
  return p;
}

// Scratch of the calling thread: targets are shared by a run's threads, and fresh matrices per
// call would allocate at every temperature.
template <class M>
M& scratch(Eigen::Index rows, Eigen::Index cols, int which) {
  thread_local M m[3];
  m[which].resize(rows, cols);
  return m[which];
}

// One evaluation in precision T: U = Phi X (padded rows), the experts (U <- psi(U), e), and
// with `grad` G = Phi^T psi.
template <class T, class Matrix, class Vector>
void evaluate(ExpertType type, const Matrix& phi, const Matrix& phi_t, const Vector& lambda, int L,
              const Eigen::MatrixXd& X, Eigen::VectorXd& e, Eigen::MatrixXd* G) {
  using M = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
  const Eigen::Index d = X.rows(), P = X.cols();
  const T* x = nullptr;
  if constexpr (std::is_same_v<T, double>) {
    x = X.data();
  } else {
    M& Xs = scratch<M>(d, P, 0);
    Xs = X.template cast<T>();
    x = Xs.data();
  }
  M& U = scratch<M>(phi.rows(), P, 1);
  const auto R = static_cast<std::size_t>(phi.rows()), n = static_cast<std::size_t>(P);
  detail::padded_product(phi.data(), R, static_cast<std::size_t>(d), x, static_cast<std::size_t>(d),
                         n, U.data());
  e.resize(P);
  if (type == ExpertType::laplace)
    detail::laplace_experts(U.data(), R, n, lambda.data(), e.data());
  else
    detail::student_t_experts(U.data(), R, n, lambda.data(), e.data());
  if (!G) return;
  M& Gp = scratch<M>(phi_t.rows(), P, 2);
  detail::padded_product(phi_t.data(), static_cast<std::size_t>(phi_t.rows()),
                         static_cast<std::size_t>(L), U.data(), R, n, Gp.data());
  *G = Gp.topRows(d).template cast<double>();
}

}  // namespace

ProductOfExperts::ProductOfExperts(ExpertType type, Eigen::MatrixXd phi, Eigen::VectorXd lambda,
                                   const std::string& source)
    : type_(type), phi_(std::move(phi)), lambda_(std::move(lambda)) {
  const Eigen::Index L = phi_.rows(), d = phi_.cols();
  if (d < 1 || L < d)
    fail_input(source, "Phi",
               "an L x d matrix with L >= d >= 1 (fewer experts than dimensions is "
               "not normalisable), got " +
                   std::to_string(L) + " x " + std::to_string(d));
  if (!phi_.allFinite()) fail_input(source, "Phi", "finite values");
  if (lambda_.size() != L)
    fail_input(
        source, "lambda",
        "one value per expert (" + std::to_string(L) + "), got " + std::to_string(lambda_.size()));
  if (!lambda_.allFinite() || (lambda_.array() <= 0.0).any())
    fail_input(source, "lambda", "finite values > 0");
  phi_padded_ = padded_rows(phi_);
  phi_t_padded_ = padded_rows(Eigen::MatrixXd(phi_.transpose()));
  lambda_padded_ = padded_rows(lambda_);
  if (L == d) {
    Eigen::PartialPivLU<Eigen::MatrixXd> lu(phi_);
    const Eigen::VectorXd diag = lu.matrixLU().diagonal();
    if ((diag.array() == 0.0).any()) fail_input(source, "Phi", "an invertible square matrix");
    log_abs_det_ = diag.array().abs().log().sum();
    phi_inverse_ = lu.inverse();
    if (type_ == ExpertType::student_t && (lambda_.array() <= 0.5).any())
      fail_input(source, "lambda",
                 "values > 1/2 for complete Student-t experts (else Z is infinite)");
  } else {
    Eigen::JacobiSVD<Eigen::MatrixXd> svd(phi_);
    const Eigen::VectorXd s = svd.singularValues();
    if (!(s(d - 1) > 1e-12 * s(0))) fail_input(source, "Phi", "rank d (its columns are dependent)");
  }
}

ProductOfExperts ProductOfExperts::load(const std::string& path, ExpertType type,
                                        const PoeKeys& keys) {
  // One after the other (argument evaluation order is unspecified): errors name the first bad
  // array.
  Eigen::MatrixXd filters = io::read_npz_matrix(path, keys.filters, "L x d");
  Eigen::VectorXd lambda = io::read_npz_vector(path, keys.lambda, "L");
  return ProductOfExperts(type, std::move(filters), std::move(lambda), path);
}

ProductOfExperts ProductOfExperts::random(ExpertType type, int dim, int num_experts,
                                          std::uint64_t seed) {
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

ProductOfExperts ProductOfExperts::with_single_precision(bool single) const {
  ProductOfExperts p = *this;
  p.single_ = single;
  p.phi_padded_single_ =
      single ? padded_rows(Eigen::MatrixXf(phi_.cast<float>())) : Eigen::MatrixXf();
  p.phi_t_padded_single_ =
      single ? padded_rows(Eigen::MatrixXf(phi_.transpose().cast<float>())) : Eigen::MatrixXf();
  p.lambda_padded_single_ =
      single ? padded_rows(Eigen::VectorXf(lambda_.cast<float>())) : Eigen::VectorXf();
  return p;
}

void ProductOfExperts::energy(const Eigen::MatrixXd& X, Eigen::VectorXd& e) const {
  // psi is made and dropped (one pass over U); the second product is skipped.
  if (single_)
    evaluate<float>(type_, phi_padded_single_, phi_t_padded_single_, lambda_padded_single_,
                    num_experts(), X, e, nullptr);
  else
    evaluate<double>(type_, phi_padded_, phi_t_padded_, lambda_padded_, num_experts(), X, e,
                     nullptr);
}

void ProductOfExperts::energy_and_grad(const Eigen::MatrixXd& X, Eigen::VectorXd& e,
                                       Eigen::MatrixXd& G) const {
  // One product Phi X serves the energy and, overwritten by psi(U) = dE/du while it is in
  // cache, the gradient's product Phi^T psi(U).
  if (single_)
    evaluate<float>(type_, phi_padded_single_, phi_t_padded_single_, lambda_padded_single_,
                    num_experts(), X, e, &G);
  else
    evaluate<double>(type_, phi_padded_, phi_t_padded_, lambda_padded_, num_experts(), X, e, &G);
}

double ProductOfExperts::expert_log_normaliser(ExpertType type, double lambda) {
  if (type == ExpertType::laplace) {
    if (!(lambda > 0.0 && std::isfinite(lambda)))
      fail_argument("logz::ProductOfExperts::expert_log_normaliser", "lambda",
                    "a finite number > 0");
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
    fail_argument("logz::ProductOfExperts::sample_exact", "Phi",
                  "a complete (square) filter matrix");
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
