// The Gaussian mixture model: energies against a direct formula, gradients against
// central finite differences, log-sum-exp safety far from every mean, batch equals one at a
// time, the exact log Z oracle against quadrature in 1-d and 2-d (and the geometric-path
// oracle at intermediate t), the exact sampler's moments, parameter validation, and the
// per-particle tempered target of the geometric path (simulated tempering's batched moves).
#include "logz/exact/gaussian_mixture.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <functional>
#include <numbers>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/models/gaussian_base.hpp"
#include "logz/models/gaussian_mixture.hpp"
#include "logz/paths/geometric_path.hpp"

namespace logz {
namespace {

using Mixture = GaussianMixture;
static_assert(ContinuousBase<GaussianMixture>);
static_assert(PerParticleTwoPartTarget<GeometricLevelsTarget<GaussianBase, GaussianMixture>>);
static_assert(TwoPartTarget<GeometricTarget<GaussianBase, GaussianMixture>>);

Eigen::MatrixXd mixture_test_matrix(int rows, int cols, std::uint64_t seed, double scale = 1.0) {
  Eigen::MatrixXd m(rows, cols);
  RandomStream s(seed, 0, Purpose::test, 0);
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) m(i, j) = scale * s.normal();
  return m;
}

Eigen::MatrixXd random_covariance(int d, std::uint64_t seed) {
  const Eigen::MatrixXd a = mixture_test_matrix(d, d, seed, 0.6);
  return a * a.transpose() + 0.3 * Eigen::MatrixXd::Identity(d, d);
}

// Three components in 3-d with full covariances and masses summing to 2.6.
Mixture three_components() {
  return Mixture({0.5, 1.5, 0.6},
                 {Eigen::Vector3d(1.0, -1.0, 0.5), Eigen::Vector3d(-2.0, 0.0, 1.0),
                  Eigen::Vector3d(0.0, 2.0, -1.5)},
                 {random_covariance(3, 11), random_covariance(3, 12), random_covariance(3, 13)});
}

// -log sum_j w_j N(x; mu_j, S_j) written out with explicit inverses and determinants.
double direct_energy(const Mixture& m, const Eigen::VectorXd& x) {
  double f = 0.0;
  for (int j = 0; j < m.num_components(); ++j) {
    const Eigen::MatrixXd& s = m.covariances()[static_cast<std::size_t>(j)];
    const Eigen::VectorXd r = x - m.means()[static_cast<std::size_t>(j)];
    f += m.weights()[static_cast<std::size_t>(j)] * std::exp(-0.5 * r.dot(s.inverse() * r)) /
         std::sqrt((2 * std::numbers::pi * s).determinant());
  }
  return -std::log(f);
}

TEST(GaussianMixture, EnergyMatchesDirectFormula) {
  const Mixture m = three_components();
  const Eigen::MatrixXd X = mixture_test_matrix(3, 7, 1, 2.0);
  Eigen::VectorXd e;
  m.energy(X, e);
  for (int p = 0; p < 7; ++p)
    EXPECT_NEAR(e(p), direct_energy(m, X.col(p)), 1e-10 * (1 + std::abs(e(p))));
}

TEST(GaussianMixture, GradientMatchesFiniteDifferences) {
  const Mixture m = three_components();
  // Points near each mean, between them and in the tails.
  const Eigen::MatrixXd X = mixture_test_matrix(3, 9, 2, 2.5);
  Eigen::VectorXd e, ep, em, e_only;
  Eigen::MatrixXd G;
  m.energy_and_grad(X, e, G);
  m.energy(X, e_only);
  const double h = 1e-6;
  for (Eigen::Index p = 0; p < X.cols(); ++p)
    EXPECT_NEAR(e(p), e_only(p), 1e-12 * (1 + std::abs(e(p))));
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    Eigen::MatrixXd Xp = X, Xm = X;
    Xp.row(i).array() += h;
    Xm.row(i).array() -= h;
    m.energy(Xp, ep);
    m.energy(Xm, em);
    for (Eigen::Index p = 0; p < X.cols(); ++p) {
      const double fd = (ep(p) - em(p)) / (2 * h);
      EXPECT_NEAR(G(i, p), fd, 1e-6 * (1 + std::abs(fd))) << "dim " << i << " particle " << p;
    }
  }
}

TEST(GaussianMixture, FarFromEveryMeanStaysFinite) {
  // Every component density underflows at |x| = 1e4; the shifted log-sum-exp does not.
  const Mixture m = three_components();
  Eigen::MatrixXd X(3, 2);
  X << 1e4, -3e4,  //
      -1e4, 0.0,   //
      1e4, 2e4;
  Eigen::VectorXd e;
  Eigen::MatrixXd G;
  m.energy_and_grad(X, e, G);
  ASSERT_TRUE(e.allFinite());
  ASSERT_TRUE(G.allFinite());
  for (int p = 0; p < 2; ++p) {
    // There the nearest component (by Mahalanobis distance) dominates: U = min_j (-a_j).
    double best = INFINITY;
    for (int j = 0; j < 3; ++j) {
      const Eigen::MatrixXd& s = m.covariances()[static_cast<std::size_t>(j)];
      const Eigen::VectorXd r = X.col(p) - m.means()[static_cast<std::size_t>(j)];
      best = std::min(best, 0.5 * r.dot(s.inverse() * r) +
                                0.5 * std::log((2 * std::numbers::pi * s).determinant()) -
                                std::log(m.weights()[static_cast<std::size_t>(j)]));
    }
    EXPECT_NEAR(e(p), best, 1e-9 * best);
  }
}

TEST(GaussianMixture, BatchEqualsOneAtATime) {
  const Mixture m = three_components();
  const Eigen::MatrixXd X = mixture_test_matrix(3, 6, 3, 2.0);
  Eigen::VectorXd e, e1;
  Eigen::MatrixXd G, G1;
  m.energy_and_grad(X, e, G);
  for (Eigen::Index p = 0; p < X.cols(); ++p) {
    m.energy_and_grad(X.col(p), e1, G1);
    EXPECT_DOUBLE_EQ(e1(0), e(p));
    for (int i = 0; i < 3; ++i) EXPECT_DOUBLE_EQ(G1(i, 0), G(i, p));
  }
}

// Simpson's rule on [lo, hi] with n (even) intervals.
double simpson(const std::function<double(double)>& f, double lo, double hi, int n) {
  const double h = (hi - lo) / n;
  double s = f(lo) + f(hi);
  for (int k = 1; k < n; ++k) s += (k % 2 ? 4.0 : 2.0) * f(lo + k * h);
  return s * h / 3.0;
}

TEST(GaussianMixtureExact, LogZMatchesQuadratureIn1d) {
  const Mixture m({0.2, 1.1, 3.0},
                  {Eigen::VectorXd::Constant(1, -3.0), Eigen::VectorXd::Constant(1, 0.5),
                   Eigen::VectorXd::Constant(1, 4.0)},
                  {Eigen::MatrixXd::Constant(1, 1, 0.25), Eigen::MatrixXd::Constant(1, 1, 2.0),
                   Eigen::MatrixXd::Constant(1, 1, 0.7)});
  auto f = [&](double x) {
    Eigen::VectorXd e;
    m.energy(Eigen::MatrixXd::Constant(1, 1, x), e);
    return std::exp(-e(0));
  };
  const double quad = std::log(simpson(f, -20.0, 25.0, 20000));
  const double exact = exact::gaussian_mixture_log_z(m.weights());
  EXPECT_NEAR(exact, std::log(4.3), 1e-14);
  EXPECT_NEAR(quad, exact, 1e-10);
  EXPECT_NEAR(m.log_z(), exact, 1e-14);
}

TEST(GaussianMixtureExact, LogZMatchesQuadratureIn2d) {
  Eigen::Matrix2d c0, c1;
  c0 << 1.0, 0.6, 0.6, 0.8;
  c1 << 0.3, -0.1, -0.1, 1.5;
  const Mixture m({2.0, 0.5}, {Eigen::Vector2d(-1.5, 0.5), Eigen::Vector2d(2.0, -1.0)}, {c0, c1});
  const int n = 800;
  const double lo = -12.0, hi = 12.0, h = (hi - lo) / n;
  // Tensor Simpson: weights (1, 4, 2, ..., 4, 1) h / 3 per axis, one batch per row.
  auto w = [&](int k) { return (k == 0 || k == n) ? 1.0 : (k % 2 ? 4.0 : 2.0); };
  Eigen::MatrixXd X(2, n + 1);
  Eigen::VectorXd e;
  double s = 0.0;
  for (int a = 0; a <= n; ++a) {
    for (int b = 0; b <= n; ++b) X(0, b) = lo + a * h, X(1, b) = lo + b * h;
    m.energy(X, e);
    for (int b = 0; b <= n; ++b) s += w(a) * w(b) * std::exp(-e(b));
  }
  const double quad = std::log(s * h * h / 9.0);
  EXPECT_NEAR(quad, exact::gaussian_mixture_log_z(m.weights()), 1e-8);
  EXPECT_NEAR(quad, std::log(2.5), 1e-8);
}

TEST(GaussianMixtureExact, GeometricPathLogZMatchesQuadrature) {
  // Base N(0.5, 2^2) (energy without constant) to the component 0.7 N(-1, 0.3) in 1-d, and
  // a 2-d case with full covariances; the integrand is written out here, not taken from
  // the models.
  for (double t : {0.0, 0.1, 0.37, 0.8, 1.0}) {
    const exact::GaussianSpec b{Eigen::VectorXd::Constant(1, 0.5),
                                Eigen::MatrixXd::Constant(1, 1, 4.0)};
    const exact::GaussianSpec g{Eigen::VectorXd::Constant(1, -1.0),
                                Eigen::MatrixXd::Constant(1, 1, 0.3)};
    auto f = [&](double x) {
      const double u0 = (x - 0.5) * (x - 0.5) / 8.0;
      const double u1 =
          (x + 1.0) * (x + 1.0) / 0.6 + 0.5 * std::log(2 * std::numbers::pi * 0.3) - std::log(0.7);
      return std::exp(-(1 - t) * u0 - t * u1);
    };
    EXPECT_NEAR(exact::gaussian_geometric_log_z(b, 0.7, g, t),
                std::log(simpson(f, -30.0, 30.0, 40000)), 1e-10)
        << "t = " << t;
  }
  Eigen::Matrix2d s0, s1;
  s0 << 2.0, 0.3, 0.3, 1.0;
  s1 << 0.5, 0.2, 0.2, 0.4;
  const exact::GaussianSpec b{Eigen::Vector2d(0.0, 1.0), s0}, g{Eigen::Vector2d(1.5, -0.5), s1};
  const Eigen::Matrix2d p0 = s0.inverse(), p1 = s1.inverse();
  for (double t : {0.25, 0.6}) {
    const int n = 600;
    const double lo = -10.0, hi = 10.0, h = (hi - lo) / n;
    auto w = [&](int k) { return (k == 0 || k == n) ? 1.0 : (k % 2 ? 4.0 : 2.0); };
    double s = 0.0;
    for (int a = 0; a <= n; ++a)
      for (int c = 0; c <= n; ++c) {
        const Eigen::Vector2d x(lo + a * h, lo + c * h);
        const Eigen::Vector2d r0 = x - b.mean, r1 = x - g.mean;
        const double u0 = 0.5 * r0.dot(p0 * r0);
        const double u1 = 0.5 * r1.dot(p1 * r1) +
                          0.5 * std::log((2 * std::numbers::pi * s1).determinant()) - std::log(1.3);
        s += w(a) * w(c) * std::exp(-(1 - t) * u0 - t * u1);
      }
    EXPECT_NEAR(exact::gaussian_geometric_log_z(b, 1.3, g, t), std::log(s * h * h / 9.0), 1e-8)
        << "t = " << t;
  }
  // At t = 0 it is the base's own log Z.
  EXPECT_NEAR(exact::gaussian_geometric_log_z(b, 1.3, g, 0.0), GaussianBase(b.mean, s0).log_z(),
              1e-12);
}

TEST(GaussianMixture, ExactSamplerMoments) {
  const Mixture m = three_components();
  const int n = 200000;
  Eigen::MatrixXd X(3, n);
  m.sample(X, BatchRandom{5, Purpose::test, 0, 0});
  // Mixture mean and covariance: sum_j pi_j mu_j and sum_j pi_j (S_j + mu_j mu_j^T) - mu mu^T.
  Eigen::Vector3d mean = Eigen::Vector3d::Zero();
  Eigen::Matrix3d second = Eigen::Matrix3d::Zero();
  const double total = 2.6;
  for (int j = 0; j < 3; ++j) {
    const double pi = m.weights()[static_cast<std::size_t>(j)] / total;
    const Eigen::Vector3d mu = m.means()[static_cast<std::size_t>(j)];
    mean += pi * mu;
    second += pi * (m.covariances()[static_cast<std::size_t>(j)] + mu * mu.transpose());
  }
  const Eigen::Matrix3d cov = second - mean * mean.transpose();
  const Eigen::Vector3d sample_mean = X.rowwise().mean();
  for (int i = 0; i < 3; ++i) {
    const double se = std::sqrt(cov(i, i) / n);
    EXPECT_NEAR(sample_mean(i), mean(i), 5 * se) << i;
  }
  const Eigen::MatrixXd centred = X.colwise() - mean;
  const Eigen::Matrix3d sample_cov = centred * centred.transpose() / n;
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 3; ++k)
      EXPECT_NEAR(sample_cov(i, k), cov(i, k), 0.03 * (1 + std::abs(cov(i, k))));
  // Same draws from the same stream, one column at a time.
  RandomStream s(5, 17, Purpose::test, 0);
  Eigen::VectorXd x(3);
  m.sample_one(s, x);
  EXPECT_EQ(x, X.col(17));
}

TEST(GaussianMixture, DefaultIsTheFig2StandIn) {
  const Mixture m = Mixture::rts_fig2();
  EXPECT_EQ(m.dim(), 10);
  EXPECT_EQ(m.num_components(), 2);
  EXPECT_NEAR(exact::gaussian_mixture_log_z(m.weights()), std::log(10.0), 1e-15);
}

TEST(GaussianMixture, InvalidParametersGiveOneLineErrors) {
  const Eigen::VectorXd mu = Eigen::VectorXd::Zero(2);
  const Eigen::MatrixXd id = Eigen::MatrixXd::Identity(2, 2);
  Eigen::MatrixXd indefinite = id;
  indefinite(1, 1) = -1.0;
  Eigen::MatrixXd asymmetric = id;
  asymmetric(0, 1) = 0.5;
  auto fails = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const InvalidArgument& e) {
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
      return true;
    }
    return false;
  };
  EXPECT_TRUE(fails([&] { Mixture({}, {}, {}); }));
  EXPECT_TRUE(fails([&] { Mixture({1.0}, {mu, mu}, {id}); }));
  EXPECT_TRUE(fails([&] { Mixture({1.0}, {mu}, {id, id}); }));
  EXPECT_TRUE(fails([&] { Mixture({0.0}, {mu}, {id}); }));
  EXPECT_TRUE(fails([&] { Mixture({-1.0}, {mu}, {id}); }));
  EXPECT_TRUE(fails([&] { Mixture({NAN}, {mu}, {id}); }));
  EXPECT_TRUE(fails([&] { Mixture({1.0, 1.0}, {mu, Eigen::VectorXd::Zero(3)}, {id, id}); }));
  EXPECT_TRUE(fails([&] { Mixture({1.0}, {mu}, {indefinite}); }));
  EXPECT_TRUE(fails([&] { Mixture({1.0}, {mu}, {asymmetric}); }));
  EXPECT_TRUE(fails([&] { Mixture({1.0}, {mu}, {Eigen::MatrixXd::Identity(3, 3)}); }));
  EXPECT_TRUE(fails([&] { exact::gaussian_mixture_log_z(std::vector<double>{1.0, 0.0}); }));
  EXPECT_FALSE(fails([&] { Mixture({1.0}, {mu}, {id}); }));
}

TEST(GeometricLevelsTarget, EachParticleAtItsOwnTemperature) {
  const GeometricPath<GaussianBase, Mixture> path(GaussianBase::isotropic(3, 2.0),
                                                  three_components());
  const Eigen::MatrixXd X = mixture_test_matrix(3, 4, 9, 2.0);
  const std::vector<double> t = {0.0, 0.3, 0.9, 1.0};
  const auto levels = path.at_levels(t);
  Eigen::VectorXd e, e1;
  Eigen::MatrixXd G, G1;
  levels.energy_and_grad(X, e, G);
  for (Eigen::Index p = 0; p < 4; ++p) {
    path.at(t[static_cast<std::size_t>(p)]).energy_and_grad(X.col(p), e1, G1);
    EXPECT_NEAR(e(p), e1(0), 1e-12 * (1 + std::abs(e1(0))));
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(G(i, p), G1(i, 0), 1e-12 * (1 + std::abs(G1(i, 0))));
  }
  // The cache tag is the path's: parts cached by at_levels serve at(t) and the work increments.
  EXPECT_EQ(levels.parts_tag(), parts_tag_of(path.at(0.5)));
  EXPECT_THROW(levels.energy(X.leftCols(3), e), InvalidArgument);
}

}  // namespace
}  // namespace logz
