// The image models of Sohl-Dickstein & Culpepper (2011) beyond the linear ones: the prior base
// (Laplace / exponential coordinates), the bilinear generative model and the mcRBM. Energies
// against formulas written out here with scalar loops, gradients against central finite
// differences, exact cases (a = 0; mcRBM without covariance term, against 2-d quadrature),
// samplers' moments, parameter validation with one-line errors naming source and key, .npz
// loading.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstdio>
#include <string>

#include "logz/core/error.hpp"
#include "logz/exact/mcrbm_mean_units.hpp"
#include "logz/io/npz.hpp"
#include "logz/models/bilinear_generative.hpp"
#include "logz/models/laplace_base.hpp"
#include "logz/models/mcrbm.hpp"

namespace logz {
namespace {

Eigen::MatrixXd random_matrix(int rows, int cols, std::uint64_t seed, double scale = 1.0) {
  Eigen::MatrixXd m(rows, cols);
  RandomStream s(seed, 0, Purpose::test, 0);
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) m(i, j) = scale * s.normal();
  return m;
}

// Central differences of the energy of every column against the analytic gradient.
template <class T>
void expect_gradient_matches(const T& target, const Eigen::MatrixXd& X, double tol = 1e-6) {
  Eigen::VectorXd e, e_plus, e_minus, e_only;
  Eigen::MatrixXd G;
  target.energy_and_grad(X, e, G);
  target.energy(X, e_only);
  ASSERT_EQ(G.rows(), X.rows());
  ASSERT_EQ(G.cols(), X.cols());
  for (Eigen::Index p = 0; p < X.cols(); ++p)
    EXPECT_NEAR(e(p), e_only(p), 1e-12 * (1 + std::abs(e(p))));
  const double h = 1e-6;
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    Eigen::MatrixXd Xp = X, Xm = X;
    Xp.row(i).array() += h;
    Xm.row(i).array() -= h;
    target.energy(Xp, e_plus);
    target.energy(Xm, e_minus);
    for (Eigen::Index p = 0; p < X.cols(); ++p) {
      const double fd = (e_plus(p) - e_minus(p)) / (2 * h);
      EXPECT_NEAR(G(i, p), fd, tol * (1 + std::abs(fd))) << "dim " << i << " particle " << p;
    }
  }
}

template <class F>
std::string error_message(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

void expect_error(const std::string& message, const std::string& needle) {
  EXPECT_NE(message.find(needle), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

io::Array to_array(const Eigen::MatrixXd& m) {
  io::Array a{{static_cast<std::size_t>(m.rows()), static_cast<std::size_t>(m.cols())}, {}};
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j) a.doubles().push_back(m(i, j));
  return a;
}

io::Array to_array(const Eigen::VectorXd& v) {
  return io::Array{{static_cast<std::size_t>(v.size())},
                   std::vector<double>(v.data(), v.data() + v.size())};
}

// ---------------------------------------------------------------- LaplaceBase

TEST(LaplaceBase, EnergyGradientLogZAndConstraints) {
  const LaplaceBase base(3, 2);
  EXPECT_EQ(base.dim(), 5);
  EXPECT_NEAR(base.log_z(), 3 * std::log(2.0), 1e-15);
  Eigen::MatrixXd X = random_matrix(5, 4, 1);
  X.bottomRows(2) = X.bottomRows(2).cwiseAbs();
  Eigen::VectorXd e;
  base.energy(X, e);
  for (int p = 0; p < 4; ++p)
    EXPECT_NEAR(e(p), std::abs(X(0, p)) + std::abs(X(1, p)) + std::abs(X(2, p)) + X(3, p) + X(4, p),
                1e-14);
  expect_gradient_matches(base, X);
  ASSERT_NE(base.constraints(), nullptr);
  EXPECT_EQ(base.constraints()->num_constraints(), 2);
  EXPECT_NO_THROW(base.constraints()->validate(5, "test"));
  Eigen::VectorXd x = Eigen::VectorXd::Zero(5);
  x(4) = -0.5;
  EXPECT_NEAR(base.constraints()->min_slack(x), -0.5, 1e-15);
  x(4) = 0.2, x(0) = -3.0;  // two-sided coordinates are unconstrained
  EXPECT_NEAR(base.constraints()->min_slack(x), 0.0, 1e-15);
  EXPECT_EQ(LaplaceBase(2, 0).constraints(), nullptr);
  EXPECT_THROW(LaplaceBase(0, 0), InvalidArgument);
  EXPECT_THROW(LaplaceBase(-1, 2), InvalidArgument);
}

TEST(LaplaceBase, SamplerMoments) {
  // Laplace: mean 0, E|x| = 1, Var 2; exponential: mean 1, Var 1, never negative.
  const LaplaceBase base(2, 2);
  const int n = 40000;
  Eigen::MatrixXd X(4, n);
  base.sample(X, BatchRandom{3, Purpose::test, 0, 0});
  for (int i = 0; i < 2; ++i) {
    EXPECT_NEAR(X.row(i).mean(), 0.0, 5 * std::sqrt(2.0 / n));
    EXPECT_NEAR(X.row(i).cwiseAbs().mean(), 1.0, 5 * std::sqrt(1.0 / n));
  }
  for (int i = 2; i < 4; ++i) {
    EXPECT_GE(X.row(i).minCoeff(), 0.0);
    EXPECT_NEAR(X.row(i).mean(), 1.0, 5 * std::sqrt(1.0 / n));
    EXPECT_NEAR((X.row(i).array() - 1.0).square().mean(), 1.0,
                5 * std::sqrt(8.0 / n));  // Var of (d-1)^2 is 8
  }
}

// ---------------------------------------------------------------- bilinear generative

// -log of the joint p(c) p(d) p(x | c, d), written out with loops.
double bilinear_negative_log_joint(const BilinearGenerative& m, const Eigen::VectorXd& x,
                                   const Eigen::VectorXd& z) {
  const int L = m.basis_dim(), Kc = m.num_c(), Kd = m.num_d(), M = m.data_dim();
  double u = 0.0;
  for (int k = 0; k < Kc; ++k) u += std::abs(z(k)) + std::log(2.0);
  for (int k = 0; k < Kd; ++k) u += z(Kc + k);
  std::vector<double> a(L);
  for (int l = 0; l < L; ++l) {
    double tc = 0, pd = 0;
    for (int k = 0; k < Kc; ++k) tc += m.theta()(l, k) * z(k);
    for (int k = 0; k < Kd; ++k) pd += m.psi()(l, k) * z(Kc + k);
    a[l] = tc * pd;
  }
  const double s = m.sigma_noise();
  for (int i = 0; i < M; ++i) {
    double r = x(i);
    for (int l = 0; l < L; ++l) r -= m.phi()(i, l) * a[l];
    u += 0.5 * r * r / (s * s) + 0.5 * std::log(2 * M_PI * s * s);
  }
  return u;
}

TEST(BilinearGenerative, PosteriorEnergyIsTheNegativeLogJoint) {
  const auto model = BilinearGenerative::random(5, 4, 3, 2, 0.1, 61);
  const Eigen::VectorXd x = random_matrix(5, 1, 62).col(0);
  const BilinearGenerativePosterior post(model, x);
  EXPECT_EQ(post.dim(), 5);
  Eigen::MatrixXd Z = random_matrix(5, 6, 63);
  Z.bottomRows(2) = Z.bottomRows(2).cwiseAbs();
  Eigen::VectorXd e;
  post.energy(Z, e);
  for (int p = 0; p < 6; ++p)
    EXPECT_NEAR(e(p), bilinear_negative_log_joint(model, x, Z.col(p)),
                1e-10 * (1 + std::abs(e(p))));
  Eigen::MatrixXd A;
  model.coefficients(Z, A);
  EXPECT_TRUE(
      A.isApprox((model.theta() * Z.topRows(3)).cwiseProduct(model.psi() * Z.bottomRows(2))));
}

TEST(BilinearGenerative, PosteriorGradientsMatchFiniteDifferences) {
  for (double sigma : {0.1, 0.7}) {
    const auto model = BilinearGenerative::random(6, 4, 3, 2, sigma, 71);
    const BilinearGenerativePosterior post(model, random_matrix(6, 1, 72).col(0));
    Eigen::MatrixXd Z = random_matrix(5, 5, 73);
    Z.bottomRows(2) = Z.bottomRows(2).cwiseAbs().array() + 0.1;  // inside d > 0, away from the face
    expect_gradient_matches(post, Z, 1e-5);
  }
}

TEST(BilinearGenerative, ConstraintsAreDNonNegative) {
  const auto model = BilinearGenerative::random(3, 2, 2, 3, 0.1, 81);
  const BilinearGenerativePosterior post(model, Eigen::Vector3d(0.1, 0.2, -0.3));
  const LinearConstraints* c = post.constraints();
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->num_constraints(), 3);
  Eigen::VectorXd z(5);
  z << -4.0, 3.0, 0.5, 0.0, 2.0;  // c unconstrained, d on and inside the faces
  EXPECT_NEAR(c->min_slack(z), 0.0, 1e-15);
  z(4) = -1e-3;
  EXPECT_LT(c->min_slack(z), 0.0);
}

TEST(BilinearGenerative, VanishingCoefficientsGiveTheNoiseDensity) {
  // The paper's sanity check (eq. 41): Phi = 0 makes p(x) = N(x; 0, sigma_n^2 I); so does a zero
  // row l of Theta or Psi wherever column l of Phi is non-zero.
  const Eigen::Vector3d x(0.05, -0.2, 0.1);
  const double truth = -x.squaredNorm() / (2 * 0.01) - 1.5 * std::log(2 * M_PI * 0.01);
  const auto r = BilinearGenerative::random(3, 2, 2, 2, 0.1, 91);
  const BilinearGenerative zero_phi(Eigen::MatrixXd::Zero(3, 2), r.theta(), r.psi(), 0.1);
  ASSERT_TRUE(zero_phi.coefficients_vanish());
  EXPECT_NEAR(*zero_phi.exact_log_likelihood(x), truth, 1e-10);
  Eigen::MatrixXd theta = r.theta(), psi = r.psi();
  theta.row(0).setZero();
  psi.row(1).setZero();
  const BilinearGenerative mixed(r.phi(), theta, psi, 0.1);
  EXPECT_TRUE(mixed.coefficients_vanish());
  EXPECT_NEAR(*mixed.exact_log_likelihood(x), truth, 1e-10);
  EXPECT_FALSE(r.coefficients_vanish());
  EXPECT_FALSE(r.exact_log_likelihood(x).has_value());
}

TEST(BilinearGenerative, RandomParametersAreSeededAndPsiNonNegative) {
  const auto a = BilinearGenerative::random(4, 3, 2, 5, 0.1, 7),
             b = BilinearGenerative::random(4, 3, 2, 5, 0.1, 7);
  const auto c = BilinearGenerative::random(4, 3, 2, 5, 0.1, 8);
  EXPECT_EQ(a.phi(), b.phi());
  EXPECT_EQ(a.theta(), b.theta());
  EXPECT_EQ(a.psi(), b.psi());
  EXPECT_NE(a.phi(), c.phi());
  EXPECT_GE(a.psi().minCoeff(), 0.0);
  EXPECT_LE(a.psi().maxCoeff(), 2.0 / 5);
  EXPECT_EQ(a.num_c(), 2);
  EXPECT_EQ(a.num_d(), 5);
  EXPECT_EQ(a.latent_dim(), 7);
}

TEST(BilinearGenerative, DataSamplerMatchesTheModelCovariance) {
  // x = Phi a + n has mean 0 and covariance Phi E[a a^T] Phi^T + sigma^2 I, with
  // E[a_l a_m] = 2 (Theta Theta^T)_lm (Psi (I + 1 1^T) Psi^T)_lm  (c Laplace: Var 2; d
  // exponential: E[d_i d_j] = 1 + [i = j]).
  const auto model = BilinearGenerative::random(3, 4, 2, 3, 0.3, 101);
  const int n = 60000;
  Eigen::MatrixXd X(3, n);
  model.sample_data(X, BatchRandom{102, Purpose::test, 0, 0});
  const Eigen::MatrixXd Edd = Eigen::MatrixXd::Identity(3, 3) + Eigen::MatrixXd::Ones(3, 3);
  const Eigen::MatrixXd Eaa = (2.0 * model.theta() * model.theta().transpose())
                                  .cwiseProduct(model.psi() * Edd * model.psi().transpose());
  const Eigen::MatrixXd cov =
      model.phi() * Eaa * model.phi().transpose() + 0.09 * Eigen::MatrixXd::Identity(3, 3);
  const Eigen::VectorXd m = X.rowwise().mean();
  const Eigen::MatrixXd C = X * X.transpose() / n;
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(m(i), 0.0, 5 * std::sqrt(cov(i, i) / n));
    // Heavy tails (products of Laplace and exponential variates): the SE of a second moment
    // from the sample's own fourth moments.
    for (int j = 0; j < 3; ++j) {
      const double se = std::sqrt(
          ((X.row(i).array() * X.row(j).array()).square().mean() - C(i, j) * C(i, j)) / n);
      EXPECT_NEAR(C(i, j), cov(i, j), 5 * se) << i << "," << j;
    }
  }
}

TEST(BilinearGenerative, ValidationNamesSourceAndKey) {
  const auto r = BilinearGenerative::random(3, 2, 2, 2, 0.1, 111);
  expect_error(error_message([&] {
                 BilinearGenerative(r.phi(), Eigen::MatrixXd::Ones(3, 2), r.psi(), 0.1, "b.npz");
               }),
               "b.npz: Theta: expected an L x K_c matrix with L = 2");
  const Eigen::MatrixXd no_columns = Eigen::MatrixXd::Ones(2, 0);
  expect_error(
      error_message([&] { BilinearGenerative(r.phi(), r.theta(), no_columns, 0.1, "b.npz"); }),
      "b.npz: Psi: expected an L x K_d matrix");
  Eigen::MatrixXd bad = r.phi();
  bad(1, 1) = std::nan("");
  expect_error(error_message([&] { BilinearGenerative(bad, r.theta(), r.psi(), 0.1, "b.npz"); }),
               "b.npz: Phi: expected finite values");
  bad = r.psi();
  bad(0, 0) = INFINITY;
  expect_error(error_message([&] { BilinearGenerative(r.phi(), r.theta(), bad, 0.1, "b.npz"); }),
               "b.npz: Psi: expected finite values");
  expect_error(
      error_message([&] { BilinearGenerative(r.phi(), r.theta(), r.psi(), 0.0, "b.npz"); }),
      "b.npz: sigma_noise: expected a finite number > 0");
  EXPECT_THROW(BilinearGenerativePosterior(r, Eigen::Vector2d(0, 0)), InvalidArgument);
}

TEST(BilinearGenerative, LoadsNpzWithConfigurableKeys) {
  const auto r = BilinearGenerative::random(4, 3, 2, 2, 0.1, 121);
  const std::string path = ::testing::TempDir() + "logz_bilinear_test.npz";
  io::write_npz(path,
                {{"A", to_array(r.phi())}, {"T", to_array(r.theta())}, {"P", to_array(r.psi())}});
  const auto loaded = BilinearGenerative::load(path, 0.1, BilinearKeys{"A", "T", "P"});
  EXPECT_EQ(loaded.phi(), r.phi());
  EXPECT_EQ(loaded.theta(), r.theta());
  EXPECT_EQ(loaded.psi(), r.psi());
  expect_error(error_message([&] { BilinearGenerative::load(path, 0.1); }),
               "Phi: expected an array named 'Phi' in the archive, got only the keys A, P, T");
  io::write_npz(path, {{"Phi", to_array(r.phi())},
                       {"Theta", to_array(Eigen::VectorXd(r.theta().col(0)))},
                       {"Psi", to_array(r.psi())}});
  expect_error(error_message([&] { BilinearGenerative::load(path, 0.1); }),
               "Theta: expected a 2-D array (L x K_c), got 3");
  std::remove(path.c_str());
}

// ---------------------------------------------------------------- mcRBM

// E(x) of eq. 40 written out with loops.
double mcrbm_energy_loops(const McRbm& m, const Eigen::VectorXd& x, bool per_dimension_norm) {
  const int M = m.dim(), L = m.num_factors(), K = m.num_covariance_units(), J = m.num_mean_units();
  double sq = 0;
  for (int i = 0; i < M; ++i) sq += x(i) * x(i);
  const double n = (per_dimension_norm ? sq / M : sq) + 0.5;
  double e = sq / (2 * m.sigma() * m.sigma());
  for (int i = 0; i < M; ++i) e -= x(i) * m.b_vis()(i);
  for (int k = 0; k < K; ++k) {
    double y = m.b_cov()(k);
    for (int l = 0; l < L; ++l) {
      double f = 0;
      for (int i = 0; i < M; ++i) f += m.C()(l, i) * x(i);
      y += 0.5 * m.P()(l, k) * f * f / n;
    }
    e -= std::log1p(std::exp(y));
  }
  for (int j = 0; j < J; ++j) {
    double y = m.b_mean()(j);
    for (int i = 0; i < M; ++i) y += m.W()(j, i) * x(i);
    e -= std::log1p(std::exp(y));
  }
  return e;
}

TEST(McRbm, EnergyMatchesEquation40) {
  for (auto norm : {McRbmNorm::sum, McRbmNorm::mean}) {
    const auto model = McRbm::random(5, 6, 4, 3, 0.8, norm, 131);
    const Eigen::MatrixXd X = random_matrix(5, 7, 132, 1.5);
    Eigen::VectorXd e;
    model.energy(X, e);
    for (int p = 0; p < 7; ++p)
      EXPECT_NEAR(e(p), mcrbm_energy_loops(model, X.col(p), norm == McRbmNorm::mean),
                  1e-11 * (1 + std::abs(e(p))));
  }
}

TEST(McRbm, GradientsMatchFiniteDifferences) {
  for (auto norm : {McRbmNorm::sum, McRbmNorm::mean}) {
    // Full model, and with no covariance, no mean or no factor units.
    for (auto [L, K, J] :
         {std::array{6, 4, 3}, std::array{3, 0, 2}, std::array{4, 3, 0}, std::array{0, 2, 2}}) {
      const auto model = McRbm::random(4, L, K, J, 1.3, norm, 141);
      SCOPED_TRACE(to_string(norm) + " L=" + std::to_string(L) + " K=" + std::to_string(K) +
                   " J=" + std::to_string(J));
      expect_gradient_matches(model, random_matrix(4, 5, 142, 2.0), 1e-5);
    }
  }
  // Strong covariance weights, small |x| (where n(x) changes fastest).
  Eigen::MatrixXd P = -5.0 * Eigen::MatrixXd::Ones(3, 2);
  const auto r = McRbm::random(3, 3, 2, 1, 1.0, McRbmNorm::sum, 143);
  const McRbm strong(P, r.C(), r.W(), r.b_mean(), r.b_cov(), r.b_vis(), 1.0, McRbmNorm::sum);
  expect_gradient_matches(strong, random_matrix(3, 6, 144, 0.3), 1e-5);
}

TEST(McRbm, RandomParametersAreSeeded) {
  const auto a = McRbm::random(4, 5, 3, 2, 1.0, McRbmNorm::sum, 9);
  const auto b = McRbm::random(4, 5, 3, 2, 1.0, McRbmNorm::sum, 9);
  EXPECT_EQ(a.C(), b.C());
  EXPECT_EQ(a.P(), b.P());
  EXPECT_EQ(a.W(), b.W());
  EXPECT_EQ(a.b_cov(), b.b_cov());
  EXPECT_LE(a.P().maxCoeff(), 0.0);
  for (int l = 0; l < 5; ++l) EXPECT_NEAR(a.C().row(l).norm(), 1.0, 1e-14);
  EXPECT_NE(a.C(), McRbm::random(4, 5, 3, 2, 1.0, McRbmNorm::sum, 10).C());
}

// log of the 2-d trapezoid sum of exp(-E) over [-a, a]^2 (E written out with loops).
double mcrbm_log_z_quadrature_2d(const McRbm& m, double a, int n) {
  const double h = 2 * a / n;
  double shift = -mcrbm_energy_loops(m, Eigen::Vector2d::Zero(), m.norm() == McRbmNorm::mean);
  double s = 0;
  for (int i = 0; i <= n; ++i)
    for (int j = 0; j <= n; ++j) {
      const double w = (i == 0 || i == n ? 0.5 : 1.0) * (j == 0 || j == n ? 0.5 : 1.0);
      s += w * std::exp(-mcrbm_energy_loops(m, Eigen::Vector2d(-a + i * h, -a + j * h),
                                            m.norm() == McRbmNorm::mean) -
                        shift);
    }
  return std::log(s * h * h) + shift;
}

TEST(McRbm, MeanUnitsLogZMatchesQuadrature) {
  // P = 0: the covariance units contribute softplus(b_c_k) each; exact/ sums the 2^J Gaussians.
  const auto r = McRbm::random(2, 3, 2, 3, 0.9, McRbmNorm::sum, 151);
  Eigen::MatrixXd W = 1.5 * r.W();
  const McRbm model(Eigen::MatrixXd::Zero(3, 2), r.C(), W, r.b_mean(), r.b_cov(),
                    Eigen::Vector2d(0.3, -0.2), 0.9, McRbmNorm::sum);
  ASSERT_TRUE(model.covariance_term_vanishes());
  ASSERT_TRUE(exact::mcrbm_log_z(model).has_value());
  EXPECT_NEAR(*exact::mcrbm_log_z(model), mcrbm_log_z_quadrature_2d(model, 12.0, 1200), 1e-8);
  EXPECT_FALSE(r.covariance_term_vanishes());
  EXPECT_FALSE(exact::mcrbm_log_z(r).has_value());
  // C = 0 also removes the covariance term; J = 0 leaves a Gaussian.
  const McRbm gaussian(r.P(), Eigen::MatrixXd::Zero(3, 2), Eigen::MatrixXd::Zero(0, 2),
                       Eigen::VectorXd(0), r.b_cov(), Eigen::Vector2d(0.3, -0.2), 0.9,
                       McRbmNorm::mean);
  ASSERT_TRUE(exact::mcrbm_log_z(gaussian).has_value());
  double softplus_bc = 0;
  for (int k = 0; k < 2; ++k) softplus_bc += std::log1p(std::exp(r.b_cov()(k)));
  EXPECT_NEAR(*exact::mcrbm_log_z(gaussian),
              softplus_bc + std::log(2 * M_PI * 0.81) + 0.81 * 0.13 / 2, 1e-12);
}

TEST(McRbm, ValidationNamesSourceAndKey) {
  const auto r = McRbm::random(3, 4, 2, 2, 1.0, McRbmNorm::sum, 161);
  auto make = [&](Eigen::MatrixXd P, Eigen::MatrixXd C, Eigen::MatrixXd W, Eigen::VectorXd bm,
                  Eigen::VectorXd bc, Eigen::VectorXd bv, double sigma) {
    return error_message([&] { McRbm(P, C, W, bm, bc, bv, sigma, McRbmNorm::sum, "m.npz"); });
  };
  expect_error(make(r.P(), r.C(), r.W(), r.b_mean(), r.b_cov(), r.b_vis(), 1.0), "no error");
  expect_error(
      make(Eigen::MatrixXd::Ones(3, 2), r.C(), r.W(), r.b_mean(), r.b_cov(), r.b_vis(), 1.0),
      "m.npz: P: expected an L x K matrix with L = 4 (the rows of C), got 3 x 2");
  expect_error(
      make(r.P(), r.C(), Eigen::MatrixXd::Ones(2, 4), r.b_mean(), r.b_cov(), r.b_vis(), 1.0),
      "m.npz: W: expected a J x M matrix with M = 3");
  expect_error(make(r.P(), r.C(), r.W(), Eigen::VectorXd::Ones(3), r.b_cov(), r.b_vis(), 1.0),
               "m.npz: b_m: expected one bias per mean unit (2), got 3");
  expect_error(make(r.P(), r.C(), r.W(), r.b_mean(), Eigen::VectorXd::Ones(1), r.b_vis(), 1.0),
               "m.npz: b_c: expected one bias per covariance unit (2)");
  expect_error(make(r.P(), r.C(), r.W(), r.b_mean(), r.b_cov(), Eigen::VectorXd::Ones(2), 1.0),
               "m.npz: b_v: expected one bias per input (3)");
  expect_error(make(r.P(), Eigen::MatrixXd::Ones(4, 0), Eigen::MatrixXd::Ones(2, 0), r.b_mean(),
                    r.b_cov(), Eigen::VectorXd(0), 1.0),
               "m.npz: C: expected an L x M matrix with M >= 1");
  Eigen::MatrixXd bad = r.C();
  bad(2, 1) = std::nan("");
  expect_error(make(r.P(), bad, r.W(), r.b_mean(), r.b_cov(), r.b_vis(), 1.0),
               "m.npz: C: expected finite values");
  Eigen::VectorXd badv = r.b_cov();
  badv(0) = -INFINITY;
  expect_error(make(r.P(), r.C(), r.W(), r.b_mean(), badv, r.b_vis(), 1.0),
               "m.npz: b_c: expected finite values");
  expect_error(make(r.P(), r.C(), r.W(), r.b_mean(), r.b_cov(), r.b_vis(), -1.0),
               "m.npz: sigma: expected a finite number > 0");
  EXPECT_THROW(parse_enum<McRbmNorm>("median"), InvalidArgument);
  EXPECT_THROW(
      exact::mcrbm_mean_units_log_z(Eigen::MatrixXd::Zero(25, 2), Eigen::VectorXd::Zero(25),
                                    Eigen::VectorXd(0), Eigen::VectorXd::Zero(2), 1.0),
      InvalidArgument);
}

TEST(McRbm, LoadsNpzWithConfigurableKeys) {
  const auto r = McRbm::random(3, 4, 2, 2, 1.0, McRbmNorm::mean, 171);
  const std::string path = ::testing::TempDir() + "logz_mcrbm_test.npz";
  io::write_npz(path, {{"P", to_array(r.P())},
                       {"C", to_array(r.C())},
                       {"Wm", to_array(r.W())},
                       {"b_m", to_array(r.b_mean())},
                       {"b_c", to_array(r.b_cov())},
                       {"b_v", to_array(r.b_vis())}});
  McRbmKeys keys;
  keys.W = "Wm";
  const auto loaded = McRbm::load(path, 1.0, McRbmNorm::mean, keys);
  EXPECT_EQ(loaded.P(), r.P());
  EXPECT_EQ(loaded.C(), r.C());
  EXPECT_EQ(loaded.W(), r.W());
  EXPECT_EQ(loaded.b_vis(), r.b_vis());
  expect_error(error_message([&] { McRbm::load(path, 1.0, McRbmNorm::mean); }),
               "W: expected an array named 'W' in the archive");
  io::write_npz(path, {{"P", to_array(r.P())},
                       {"C", to_array(r.C())},
                       {"W", to_array(r.W())},
                       {"b_m", to_array(r.W())},
                       {"b_c", to_array(r.b_cov())},
                       {"b_v", to_array(r.b_vis())}});
  expect_error(error_message([&] { McRbm::load(path, 1.0, McRbmNorm::mean); }),
               "b_m: expected a 1-D array (J), got 2 x 3");
  std::remove(path.c_str());
}

}  // namespace
}  // namespace logz
