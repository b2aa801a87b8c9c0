// Continuous models: energies against independent formulas and quadrature, gradients
// against central finite differences, exact log Z and exact samplers, the geometric path's
// work increments, parameter validation with one-line errors, and .npz loading.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>

#include "logz/core/error.hpp"
#include "logz/io/npz.hpp"
#include "logz/models/gaussian_base.hpp"
#include "logz/models/linear_generative.hpp"
#include "logz/models/product_of_experts.hpp"
#include "logz/paths/geometric_path.hpp"

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
  Eigen::VectorXd e, e_plus, e_minus;
  Eigen::MatrixXd G;
  target.energy_and_grad(X, e, G);
  Eigen::VectorXd e_only;
  target.energy(X, e_only);
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

// Trapezoid rule on [-a, a] with n intervals (the integrands here decay fast enough).
double integrate(const std::function<double(double)>& f, double a, int n) {
  const double h = 2 * a / n;
  double s = 0.5 * (f(-a) + f(a));
  for (int k = 1; k < n; ++k) s += f(-a + k * h);
  return s * h;
}

TEST(GaussianBase, IsotropicEnergyGradientAndLogZ) {
  const auto g = GaussianBase::isotropic(3, 1.7);
  const Eigen::MatrixXd X = random_matrix(3, 5, 1);
  Eigen::VectorXd e;
  g.energy(X, e);
  for (int p = 0; p < 5; ++p) EXPECT_NEAR(e(p), X.col(p).squaredNorm() / (2 * 1.7 * 1.7), 1e-12);
  expect_gradient_matches(g, X);
  EXPECT_NEAR(g.log_z(), 1.5 * std::log(2 * M_PI * 1.7 * 1.7), 1e-12);
}

TEST(GaussianBase, FullCovarianceEnergyGradientLogZAndSampler) {
  Eigen::MatrixXd A = random_matrix(3, 3, 2);
  const Eigen::MatrixXd cov = A * A.transpose() + Eigen::MatrixXd::Identity(3, 3);
  const Eigen::VectorXd mean = Eigen::Vector3d(1.0, -2.0, 0.5);
  const GaussianBase g(mean, cov);
  const Eigen::MatrixXd X = random_matrix(3, 4, 3);
  Eigen::VectorXd e;
  g.energy(X, e);
  const Eigen::MatrixXd prec = cov.inverse();  // oracle: explicit inverse, not the Cholesky solve
  for (int p = 0; p < 4; ++p) {
    const Eigen::VectorXd d = X.col(p) - mean;
    EXPECT_NEAR(e(p), 0.5 * d.dot(prec * d), 1e-10);
  }
  expect_gradient_matches(g, X);
  EXPECT_NEAR(g.log_z(), 1.5 * std::log(2 * M_PI) + 0.5 * std::log(cov.determinant()), 1e-10);

  // Exact sampler: mean and covariance of 20000 draws within 5 standard errors.
  const int n = 20000;
  Eigen::MatrixXd S(3, n);
  g.sample(S, BatchRandom{7, Purpose::test, 0, 0});
  const Eigen::VectorXd m = S.rowwise().mean();
  const Eigen::MatrixXd C = (S.colwise() - m) * (S.colwise() - m).transpose() / (n - 1);
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(m(i), mean(i), 5 * std::sqrt(cov(i, i) / n));
    for (int j = 0; j < 3; ++j)
      EXPECT_NEAR(C(i, j), cov(i, j),
                  5 * std::sqrt((cov(i, i) * cov(j, j) + cov(i, j) * cov(i, j)) / n));
  }
}

// Above d = 50 the energies go through dtrmm (below it dgemm, as the test above): a covariance
// of condition number 1e6 in 60 dimensions against energies and gradients by an LDL^T solve.
TEST(GaussianBase, FullCovarianceIllConditionedInSixtyDimensions) {
  constexpr int d = 60, n = 7;
  const Eigen::HouseholderQR<Eigen::MatrixXd> qr(random_matrix(d, d, 11));
  const Eigen::MatrixXd Q = qr.householderQ();
  Eigen::VectorXd sd(d);
  for (int i = 0; i < d; ++i) sd(i) = std::pow(10.0, -1.5 + 3.0 * i / (d - 1));  // 0.03 .. 30
  Eigen::MatrixXd cov = Q * sd.cwiseAbs2().asDiagonal() * Q.transpose();
  cov = 0.5 * (cov + cov.transpose());
  const Eigen::VectorXd mean = random_matrix(d, 1, 12).col(0);
  const GaussianBase g(mean, cov);
  const Eigen::MatrixXd X = random_matrix(d, n, 13, 3.0);
  Eigen::VectorXd e, e_alone;
  Eigen::MatrixXd G;
  g.energy_and_grad(X, e, G);
  g.energy(X, e_alone);
  const Eigen::LDLT<Eigen::MatrixXd> ldlt(cov);
  for (int p = 0; p < n; ++p) {
    const Eigen::VectorXd diff = X.col(p) - mean;
    const Eigen::VectorXd grad = ldlt.solve(diff);
    const double u = 0.5 * diff.dot(grad);
    EXPECT_NEAR(e(p), u, 1e-9 * u) << p;
    EXPECT_NEAR(e_alone(p), u, 1e-9 * u) << p;
    EXPECT_LE((G.col(p) - grad).norm(), 1e-8 * grad.norm()) << p;
  }
}

TEST(GaussianBase, FittedToData) {
  Eigen::MatrixXd data = random_matrix(200, 2, 4);
  data.col(1) = 0.5 * data.col(0) + data.col(1) + Eigen::VectorXd::Constant(200, 3.0);
  const auto g = GaussianBase::fitted(data);
  EXPECT_NEAR(g.mean()(1), data.col(1).mean(), 1e-12);
  const Eigen::MatrixXd c = data.rowwise() - data.colwise().mean();
  EXPECT_TRUE(g.covariance().isApprox(c.transpose() * c / 199.0, 1e-10));
  try {
    GaussianBase::fitted(random_matrix(2, 3, 5), 0.0, "points.npy");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("points.npy"), std::string::npos);
  }
}

TEST(ProductOfExperts, GradientsMatchFiniteDifferences) {
  for (auto type : {ExpertType::laplace, ExpertType::student_t}) {
    for (int L : {4, 9}) {
      const auto poe = ProductOfExperts::random(type, 4, L, 11);
      expect_gradient_matches(poe, random_matrix(4, 6, 12, 2.0), 1e-5);
    }
  }
}

TEST(ProductOfExperts, EnergyMatchesDirectSum) {
  const auto poe = ProductOfExperts::random(ExpertType::student_t, 3, 5, 13);
  const Eigen::MatrixXd X = random_matrix(3, 2, 14);
  Eigen::VectorXd e;
  poe.energy(X, e);
  for (int p = 0; p < 2; ++p) {
    double s = 0;
    for (int l = 0; l < 5; ++l) {
      double u = 0;
      for (int j = 0; j < 3; ++j) u += poe.phi()(l, j) * X(j, p);
      s += poe.lambda()(l) * std::log(1 + u * u);
    }
    EXPECT_NEAR(e(p), s, 1e-12);
  }
}

// Energies and gradients of every shape the vectorised experts meet (L below, at and past a
// vector's lanes, with a remainder) against the same formulas written out; single precision
// within float rounding of them.
TEST(ProductOfExperts, BatchExpertsMatchTheFormulasInBothPrecisions) {
  for (auto type : {ExpertType::laplace, ExpertType::student_t}) {
    for (int L : {3, 8, 16, 36, 37}) {
      const auto poe = ProductOfExperts::random(type, 3, L, 21);
      const auto single = poe.with_single_precision();
      EXPECT_TRUE(single.single_precision());
      const Eigen::MatrixXd X = random_matrix(3, 9, 22, 2.0);
      const Eigen::MatrixXd U = poe.phi() * X;
      Eigen::VectorXd e_ref = Eigen::VectorXd::Zero(9);
      Eigen::MatrixXd psi(L, 9);
      for (int p = 0; p < 9; ++p)
        for (int l = 0; l < L; ++l) {
          const double u = U(l, p), lam = poe.lambda()(l);
          e_ref(p) += type == ExpertType::laplace ? lam * std::abs(u) : lam * std::log(1 + u * u);
          psi(l, p) =
              type == ExpertType::laplace ? lam * ((u > 0) - (u < 0)) : lam * 2 * u / (1 + u * u);
        }
      const Eigen::MatrixXd G_ref = poe.phi().transpose() * psi;
      Eigen::VectorXd e, e1, e2;
      Eigen::MatrixXd G, G2;
      poe.energy_and_grad(X, e, G);
      poe.energy(X, e1);
      single.energy_and_grad(X, e2, G2);
      EXPECT_LT((e - e_ref).cwiseAbs().maxCoeff(), 1e-12 * (1 + e_ref.cwiseAbs().maxCoeff())) << L;
      EXPECT_LT((e1 - e_ref).cwiseAbs().maxCoeff(), 1e-12 * (1 + e_ref.cwiseAbs().maxCoeff())) << L;
      EXPECT_LT((G - G_ref).cwiseAbs().maxCoeff(), 1e-12 * (1 + G_ref.cwiseAbs().maxCoeff())) << L;
      EXPECT_LT((e2 - e_ref).cwiseAbs().maxCoeff(), 1e-5 * (1 + e_ref.cwiseAbs().maxCoeff())) << L;
      EXPECT_LT((G2 - G_ref).cwiseAbs().maxCoeff(), 1e-5 * (1 + G_ref.cwiseAbs().maxCoeff())) << L;
    }
  }
}

TEST(ProductOfExperts, ExpertNormalisersMatchQuadrature) {
  for (double lam : {0.75, 1.0, 2.5}) {
    // Substituting u = sinh(s): integral (1+u^2)^(-lam) du = integral cosh(s)^(1 - 2 lam) ds,
    // smooth with tails below exp(-(2 lam - 1) A).
    const double a = 40.0 / (2 * lam - 1);
    const double z =
        integrate([&](double s) { return std::pow(std::cosh(s), 1 - 2 * lam); }, a, 400000);
    EXPECT_NEAR(ProductOfExperts::expert_log_normaliser(ExpertType::student_t, lam), std::log(z),
                2e-3)
        << lam;
  }
  EXPECT_NEAR(ProductOfExperts::expert_log_normaliser(ExpertType::laplace, 2.0),
              std::log(integrate([](double u) { return std::exp(-2 * std::abs(u)); }, 30, 600000)),
              1e-6);
  EXPECT_THROW(ProductOfExperts::expert_log_normaliser(ExpertType::student_t, 0.5),
               InvalidArgument);
}

TEST(ProductOfExperts, CompleteLogZMatchesTwoDimensionalQuadrature) {
  for (auto type : {ExpertType::laplace, ExpertType::student_t}) {
    Eigen::MatrixXd phi(2, 2);
    phi << 1.0, 0.4, -0.3, 0.8;
    const Eigen::VectorXd lambda = Eigen::Vector2d(1.5, 2.0);
    const ProductOfExperts poe(type, phi, lambda);
    // Grid sum of the unnormalised density written out here, independent of the class.
    const double a = type == ExpertType::laplace ? 30.0 : 400.0;
    const int n = type == ExpertType::laplace ? 1500 : 4000;
    const double h = 2 * a / n;
    double s = 0;
    for (int i = 0; i <= n; ++i) {
      for (int j = 0; j <= n; ++j) {
        const double x = -a + i * h, y = -a + j * h;
        const double u1 = x + 0.4 * y, u2 = -0.3 * x + 0.8 * y;
        const double en = type == ExpertType::laplace
                              ? 1.5 * std::abs(u1) + 2.0 * std::abs(u2)
                              : 1.5 * std::log1p(u1 * u1) + 2.0 * std::log1p(u2 * u2);
        s += std::exp(-en);
      }
    }
    ASSERT_TRUE(poe.exact_log_z().has_value());
    EXPECT_NEAR(*poe.exact_log_z(), std::log(s * h * h), type == ExpertType::laplace ? 1e-3 : 2e-2)
        << to_string(type);
  }
}

TEST(ProductOfExperts, ExactSamplerMatchesExpertMoments) {
  // u = Phi x must have independent expert marginals: E|u| = 1/lambda for Laplace and
  // E[log(1 + u^2)] from quadrature for Student-t.
  const int n = 40000;
  for (auto type : {ExpertType::laplace, ExpertType::student_t}) {
    const auto poe = ProductOfExperts::random(type, 3, 3, 21);
    Eigen::MatrixXd X(3, n);
    poe.sample_exact(X, BatchRandom{22, Purpose::test, 0, 0});
    const Eigen::MatrixXd U = poe.phi() * X;
    for (int l = 0; l < 3; ++l) {
      const double lam = poe.lambda()(l);
      Eigen::ArrayXd f = type == ExpertType::laplace ? U.row(l).array().abs().eval()
                                                     : U.row(l).array().square().log1p().eval();
      double truth;
      if (type == ExpertType::laplace) {
        truth = 1.0 / lam;
      } else {
        const double z = std::exp(ProductOfExperts::expert_log_normaliser(type, lam));
        truth = integrate(
                    [&](double s) {
                      return 2 * std::log(std::cosh(s)) * std::pow(std::cosh(s), 1 - 2 * lam);
                    },
                    60.0 / (2 * lam - 1), 400000) /
                z;
      }
      const double mean = f.mean(), sd = std::sqrt((f - mean).square().sum() / (n - 1));
      EXPECT_NEAR(mean, truth, 5 * sd / std::sqrt(n)) << to_string(type) << " expert " << l;
    }
  }
}

TEST(ProductOfExperts, ValidationNamesSourceAndKey) {
  auto message = [](auto&& f) {
    try {
      f();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string m1 = message([] {
    ProductOfExperts(ExpertType::laplace, Eigen::MatrixXd::Ones(2, 3), Eigen::VectorXd::Ones(2),
                     "p.npz");
  });
  EXPECT_NE(m1.find("p.npz: Phi: expected"), std::string::npos) << m1;
  const std::string m2 = message([] {
    ProductOfExperts(ExpertType::student_t, Eigen::MatrixXd::Identity(2, 2),
                     Eigen::VectorXd::Constant(2, 0.4), "p.npz");
  });
  EXPECT_NE(m2.find("p.npz: lambda: expected values > 1/2"), std::string::npos) << m2;
  const std::string m3 = message([] {
    ProductOfExperts(ExpertType::laplace, Eigen::MatrixXd::Ones(2, 2), Eigen::VectorXd::Ones(2),
                     "p.npz");
  });
  EXPECT_NE(m3.find("invertible"), std::string::npos) << m3;
  EXPECT_EQ(m1.find('\n'), std::string::npos);
}

TEST(ProductOfExperts, LoadsNpzWithConfigurableKeys) {
  const auto poe = ProductOfExperts::random(ExpertType::student_t, 3, 4, 31);
  io::Array phi{{4, 3}, {}}, lam{{4}, {}};
  for (int l = 0; l < 4; ++l) {
    for (int j = 0; j < 3; ++j) phi.doubles().push_back(poe.phi()(l, j));
    lam.doubles().push_back(poe.lambda()(l));
  }
  const std::string path = ::testing::TempDir() + "logz_poe_test.npz";
  io::write_npz(path, {{"W", phi}, {"lam", lam}});
  const auto loaded = ProductOfExperts::load(path, ExpertType::student_t, PoeKeys{"W", "lam"});
  EXPECT_EQ(loaded.phi(), poe.phi());
  EXPECT_EQ(loaded.lambda(), poe.lambda());
  EXPECT_THROW(ProductOfExperts::load(path, ExpertType::student_t), InputError);  // no "Phi" member
  std::remove(path.c_str());
}

TEST(LinearGenerative, PosteriorGradientsMatchFiniteDifferences) {
  for (auto prior : {PriorType::gaussian, PriorType::laplace}) {
    const auto model = LinearGenerative::random(5, 3, 0.1, prior, 41);
    const LinearGenerativePosterior post(model, random_matrix(5, 1, 42).col(0));
    expect_gradient_matches(post, random_matrix(3, 4, 43), 1e-5);
  }
}

// The joint density p(a) p(x | a) written out for one latent dimension.
double joint_density(PriorType prior, const Eigen::VectorXd& phi, double sigma,
                     const Eigen::VectorXd& x, double a) {
  const double pa = prior == PriorType::gaussian ? std::exp(-0.5 * a * a) / std::sqrt(2 * M_PI)
                                                 : 0.5 * std::exp(-std::abs(a));
  double lik = 1.0;
  for (int i = 0; i < x.size(); ++i) {
    const double r = x(i) - phi(i) * a;
    lik *= std::exp(-0.5 * r * r / (sigma * sigma)) / (std::sqrt(2 * M_PI) * sigma);
  }
  return pa * lik;
}

TEST(LinearGenerative, PosteriorEnergyIsTheNegativeLogJointAndExactLikelihoodAgrees) {
  const Eigen::Vector2d phi(0.8, -0.5), x(0.3, -0.1);
  for (auto prior : {PriorType::gaussian, PriorType::laplace}) {
    const LinearGenerative model(Eigen::MatrixXd(phi), 0.3, prior);
    const LinearGenerativePosterior post(model, x);
    Eigen::MatrixXd A(1, 3);
    A << -0.7, 0.1, 1.3;
    Eigen::VectorXd e;
    post.energy(A, e);
    for (int p = 0; p < 3; ++p)
      EXPECT_NEAR(e(p), -std::log(joint_density(prior, phi, 0.3, x, A(0, p))), 1e-10);
    const double px =
        integrate([&](double a) { return joint_density(prior, phi, 0.3, x, a); }, 30, 300000);
    if (prior == PriorType::gaussian) {
      ASSERT_TRUE(model.exact_log_likelihood(x).has_value());
      EXPECT_NEAR(*model.exact_log_likelihood(x), std::log(px), 1e-8);
    } else {
      EXPECT_FALSE(model.exact_log_likelihood(x).has_value());
    }
  }
}

TEST(LinearGenerative, ZeroBasisGivesTheNoiseDensity) {
  // The paper's sanity check (eq. 41): Phi = 0 makes p(x) = N(x; 0, sigma_n^2 I).
  const LinearGenerative model(Eigen::MatrixXd::Zero(3, 2), 0.1, PriorType::gaussian);
  const Eigen::Vector3d x(0.05, -0.2, 0.1);
  const double truth = -x.squaredNorm() / (2 * 0.01) - 1.5 * std::log(2 * M_PI * 0.01);
  EXPECT_NEAR(*model.exact_log_likelihood(x), truth, 1e-10);
}

TEST(GeometricPath, TemperedEnergyWorkIncrementAndTrace) {
  const auto poe = ProductOfExperts::random(ExpertType::laplace, 3, 3, 51);
  const GeometricPath path(GaussianBase::isotropic(3, 1.5), poe);
  auto batch = path.make_batch(5);
  path.sample_base(batch, BatchRandom{52, Purpose::base_sample, 0, 0});
  Eigen::VectorXd eb, et, e;
  path.base().energy(batch.X, eb);
  poe.energy(batch.X, et);
  path.at(0.3).energy(batch.X, e);
  std::vector<double> w(5), tr(5);
  path.work_increment(0.3, 0.45, batch, w);
  path.trace_energy(batch, tr);
  for (int p = 0; p < 5; ++p) {
    EXPECT_NEAR(e(p), 0.7 * eb(p) + 0.3 * et(p), 1e-12);
    EXPECT_NEAR(w[p], 0.15 * (et(p) - eb(p)), 1e-12);
    EXPECT_NEAR(tr[p], et(p) - eb(p), 1e-12);
  }
  expect_gradient_matches(path.at(0.3), batch.X, 1e-5);
  // After an outside change of X the cache is not trusted.
  batch.X.array() += 0.1;
  batch.parts.invalidate();
  path.work_increment(0.0, 1.0, batch, w);
  path.base().energy(batch.X, eb);
  poe.energy(batch.X, et);
  for (int p = 0; p < 5; ++p) EXPECT_NEAR(w[p], et(p) - eb(p), 1e-12);
}

TEST(GeometricPath, BaseDrawsDependOnParticleOnly) {
  const GeometricPath path(GaussianBase::isotropic(2, 1.0),
                           ProductOfExperts::random(ExpertType::laplace, 2, 2, 1));
  auto all = path.make_batch(6), tail = path.make_batch(2);
  path.sample_base(all, BatchRandom{9, Purpose::base_sample, 0, 0});
  path.sample_base(tail, BatchRandom{9, Purpose::base_sample, 0, 4});
  EXPECT_EQ(all.X.rightCols(2), tail.X);
  EXPECT_EQ(all.V.rightCols(2), tail.V);
}

TEST(LinearConstraints, ValidationAndSlack) {
  auto c = LinearConstraints::nonnegative(3);
  EXPECT_DOUBLE_EQ(c.min_slack(Eigen::Vector3d(1, 2, 0.5)), 0.5);
  c.A.row(1).setZero();
  EXPECT_THROW(c.validate(3, "model.npz"), InputError);
}

}  // namespace
}  // namespace logz
