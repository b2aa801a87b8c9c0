// The bilinear generative model and the mcRBM under annealing (fixed seeds; tolerances
// |est - exact| <= 5 SE + SE^2, the second term allowing for the -SE^2/2 bias of the log of
// an unbiased Z estimate, with SE targets fixed in advance):
//  - the prior base under HAIS with reflection at d = 0: exact-start invariance of its moments;
//    HAIS draws of a bilinear posterior keep d >= 0 and reflect;
//  - bilinear: Phi = 0 gives N(x; 0, sigma_n^2 I) with zero-variance works (the paper's sanity
//    check); K_c = K_d = 1 against 2-d quadrature of the joint over (c, d);
//  - mcRBM: without covariance term against the exact sum over mean-unit states; a tiny 2-d
//    mcRBM with a strong covariance term against 2-d quadrature, for both normalisations.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstdio>

#include "logz/anneal/annealer.hpp"
#include "logz/estimators/jarzynski.hpp"
#include "logz/exact/mcrbm_mean_units.hpp"
#include "logz/kernels/hais.hpp"
#include "logz/models/bilinear_generative.hpp"
#include "logz/models/gaussian_base.hpp"
#include "logz/models/laplace_base.hpp"
#include "logz/models/mcrbm.hpp"
#include "logz/paths/geometric_path.hpp"
#include "support/ais_check.hpp"

namespace logz {
namespace {

using test_support::kZ;

using test_support::AisCheck;
using test_support::expect_agrees;
using test_support::run_ais;

Hais hais(double eps) { return Hais(eps, Hais::half_life_refresh(eps, 1)); }

// ---------------------------------------------------------------- reflection at d = 0

TEST(ImageModels, PriorBaseIsInvariantUnderHaisWithReflection) {
  // Exact prior draws stay prior-distributed after 40 HAIS calls on the prior itself (t = 0 of
  // the bilinear path): c Laplace (mean 0, E|c| = 1), d exponential (mean 1, E d^2 = 2), only
  // through reflections at d = 0. The prior is the path's t = 0 target.
  const auto model = BilinearGenerative::random(3, 2, 2, 2, 0.1, 201);
  Eigen::VectorXd x(3);
  x << 0.1, -0.2, 0.3;
  const GeometricPath path(model.prior(), BilinearGenerativePosterior(model, x));
  const int n = 20000;
  ContinuousBatch b(4, n);
  model.prior().sample(b.X, BatchRandom{202, Purpose::test, 0, 0});
  path.sample_momentum(b, BatchRandom{202, Purpose::test, 1, 0});
  const auto target = path.at(0.0);
  ContinuousKernelInfo info;
  for (std::uint32_t k = 0; k < 40; ++k)
    info += hais(0.3).step(target, b, BatchRandom{203, Purpose::forward_kernel, k, 0});
  EXPECT_GT(info.reflections, 1000u);
  EXPECT_GE(b.X.bottomRows(2).minCoeff(), -1e-12);
  for (int i = 0; i < 2; ++i) {
    EXPECT_NEAR(b.X.row(i).mean(), 0.0, kZ * std::sqrt(2.0 / n)) << i;
    EXPECT_NEAR(b.X.row(i).cwiseAbs().mean(), 1.0, kZ * std::sqrt(1.0 / n)) << i;
  }
  for (int i = 2; i < 4; ++i) {
    EXPECT_NEAR(b.X.row(i).mean(), 1.0, kZ * std::sqrt(1.0 / n)) << i;
    EXPECT_NEAR(b.X.row(i).squaredNorm() / n, 2.0, kZ * std::sqrt(20.0 / n))
        << i;  // Var d^2 = 24 - 4
  }
}

TEST(ImageModels, BilinearPosteriorDrawsKeepDNonNegative) {
  const auto model = BilinearGenerative::random(6, 4, 3, 3, 0.1, 211);
  Eigen::MatrixXd data(6, 1);
  model.sample_data(data, BatchRandom{212, Purpose::test, 0, 0});
  const GeometricPath path(model.prior(), BilinearGenerativePosterior(model, data.col(0)));
  std::vector<ContinuousBatch> finals;
  const auto c = run_ais(path, hais(0.05), 500, 100, 213, &finals);
  EXPECT_TRUE(std::isfinite(c.estimate));
  double min_d = INFINITY;
  for (const auto& b : finals) min_d = std::min(min_d, b.X.bottomRows(3).minCoeff());
  EXPECT_GE(min_d, -1e-12);
}

// ---------------------------------------------------------------- bilinear: exact cases

TEST(ImageModels, BilinearZeroBasisSanityCheck) {
  // Phi = 0: p(x) = N(x; 0, sigma_n^2 I) whatever Theta, Psi (the paper's eq. 41). The base is
  // the prior, so every work is the same constant and the estimate is exact to rounding.
  const auto r = BilinearGenerative::random(4, 3, 2, 2, 0.1, 221);
  const BilinearGenerative model(Eigen::MatrixXd::Zero(4, 3), r.theta(), r.psi(), 0.1);
  const Eigen::Vector4d x(0.05, -0.1, 0.02, 0.13);
  const double exact = -x.squaredNorm() / (2 * 0.01) - 2.0 * std::log(2 * M_PI * 0.01);
  const GeometricPath path(model.prior(), BilinearGenerativePosterior(model, x));
  const auto c = run_ais(path, hais(0.2), 200, 100, 222);
  EXPECT_NEAR(c.estimate, exact, 1e-9);
  // Works equal to rounding: an error below 1e-9, or NaN when they are equal to the bit (the
  // estimators' zero_variance; which one depends on the compiler's rounding).
  EXPECT_TRUE(std::isnan(c.std_error) || c.std_error < 1e-9) << c.std_error;
}

// Two independent oracles of log p(x) for K_c = K_d = 1, where Phi a = v s with v = Phi
// (theta .* psi) and s = c d.
// (a) s has the density K_0(2 sqrt|s|) (integral over d of (1/d) (1/2) e^{-|s|/d} e^{-d}), so
//     p(x) = integral K_0(2 sqrt|s|) N(x; v s, sigma^2 I) ds; with s = +-u^2 this is
//     integral_0^inf 2u K_0(2u) [N(x; v u^2, .) + N(x; -v u^2, .)] du (trapezoid, step h).
double bilinear_log_px_bessel(const Eigen::VectorXd& v, double s, const Eigen::VectorXd& x,
                              double h) {
  const double xx = x.squaredNorm(), xv = x.dot(v), vv = v.squaredNorm(),
               M = static_cast<double>(x.size());
  const double shift = -(xx - xv * xv / vv) / (2 * s * s);  // the largest exponent of the Gaussian
  double sum = 0;  // the u = 0 end contributes 0 (2u K_0(2u) -> 0)
  for (int k = 1; k * h < 12.0; ++k) {
    const double u = k * h, t = u * u;
    const double g = std::exp(-(xx - 2 * t * xv + t * t * vv) / (2 * s * s) - shift) +
                     std::exp(-(xx + 2 * t * xv + t * t * vv) / (2 * s * s) - shift);
    sum += 2 * u * std::cyl_bessel_k(0.0, 2 * u) * g;
  }
  return std::log(sum * h) + shift - 0.5 * M * std::log(2 * M_PI * s * s);
}

// (b) The 2-d trapezoid sum over (c, d) in [-30, 30] x [0, 30] of (1/2) e^{-|c|} e^{-d}
//     N(x; v c d, sigma^2 I) (the kink at c = 0 and the face d = 0 lie on grid lines).
double bilinear_log_px_grid(const Eigen::VectorXd& v, double s, const Eigen::VectorXd& x,
                            double h) {
  const double xx = x.squaredNorm(), xv = x.dot(v), vv = v.squaredNorm(),
               M = static_cast<double>(x.size());
  const double shift = -(xx - xv * xv / vv) / (2 * s * s);
  const int n = static_cast<int>(std::lround(30.0 / h));
  double sum = 0;
  for (int j = 0; j <= n; ++j) {
    const double d = j * h, wd = (j == 0 || j == n) ? 0.5 : 1.0;
    double row = 0;
    for (int i = -n; i <= n; ++i) {
      const double c = i * h, t = c * d;
      const double w = (i == -n || i == n) ? 0.5 : 1.0;
      row += w * std::exp(-std::abs(c) - d - (xx - 2 * t * xv + t * t * vv) / (2 * s * s) - shift);
    }
    sum += wd * row;
  }
  return std::log(sum * h * h) + shift - std::log(2.0) - 0.5 * M * std::log(2 * M_PI * s * s);
}

TEST(ImageModels, BilinearOneByOneLatentAgainstQuadrature) {
  const auto model = BilinearGenerative::random(3, 2, 1, 1, 0.1, 231);
  const Eigen::VectorXd v = model.phi() * model.theta().col(0).cwiseProduct(model.psi().col(0));
  Eigen::MatrixXd data(3, 2);
  model.sample_data(data, BatchRandom{232, Purpose::test, 0, 0});
  for (int i = 0; i < 2; ++i) {
    const double exact = bilinear_log_px_bessel(v, 0.1, data.col(i), 1e-4);
    // The two oracles agree far below any SE here.
    ASSERT_NEAR(exact, bilinear_log_px_bessel(v, 0.1, data.col(i), 2e-4), 1e-6);
    ASSERT_NEAR(exact, bilinear_log_px_grid(v, 0.1, data.col(i), 0.01), 1e-4);
    const GeometricPath path(model.prior(), BilinearGenerativePosterior(model, data.col(i)));
    expect_agrees(run_ais(path, hais(0.2), 10000, 400, 233 + i), exact, 0.03,
                  "HAIS bilinear 1+1 x" + std::to_string(i));
  }
}

// ---------------------------------------------------------------- mcRBM

TEST(ImageModels, McRbmWithoutCovarianceTermAgainstExactSum) {
  // P = 0: Z is a sum over the 2^5 mean-unit states of Gaussian integrals (exact/).
  const auto r = McRbm::random(6, 6, 4, 5, 1.0, McRbmNorm::sum, 241);
  const McRbm model(Eigen::MatrixXd::Zero(6, 4), r.C(), 2.0 * r.W(), r.b_mean(), r.b_cov(),
                    r.b_vis(), 1.0, McRbmNorm::sum);
  const double exact = *exact::mcrbm_log_z(model);
  const GeometricPath path(GaussianBase::isotropic(6, 1.5), model);
  expect_agrees(run_ais(path, hais(0.2), 1000, 200, 242), exact, 0.05, "HAIS mcRBM mean units");
}

// log of the 2-d trapezoid sum of exp(-E) over [-a, a]^2, E of eq. 40 written out here.
double mcrbm_log_z_quadrature_2d(const Eigen::MatrixXd& P, const Eigen::MatrixXd& C,
                                 const Eigen::MatrixXd& W, const Eigen::VectorXd& bm,
                                 const Eigen::VectorXd& bc, const Eigen::VectorXd& bv, double sigma,
                                 double kappa, double a, int n) {
  auto energy = [&](double x0, double x1) {
    const double sq = x0 * x0 + x1 * x1, norm = kappa * sq + 0.5;
    double e = sq / (2 * sigma * sigma) - bv(0) * x0 - bv(1) * x1;
    for (Eigen::Index k = 0; k < P.cols(); ++k) {
      double y = bc(k);
      for (Eigen::Index l = 0; l < C.rows(); ++l) {
        const double f = C(l, 0) * x0 + C(l, 1) * x1;
        y += 0.5 * P(l, k) * f * f / norm;
      }
      e -= std::log1p(std::exp(y));
    }
    for (Eigen::Index j = 0; j < W.rows(); ++j)
      e -= std::log1p(std::exp(W(j, 0) * x0 + W(j, 1) * x1 + bm(j)));
    return e;
  };
  const double h = 2 * a / n, shift = -energy(0, 0);
  double s = 0;
  for (int i = 0; i <= n; ++i)
    for (int j = 0; j <= n; ++j) {
      const double w = (i == 0 || i == n ? 0.5 : 1.0) * (j == 0 || j == n ? 0.5 : 1.0);
      s += w * std::exp(-energy(-a + i * h, -a + j * h) - shift);
    }
  return std::log(s * h * h) + shift;
}

TEST(ImageModels, McRbmTwoDimensionalAgainstQuadrature) {
  // A strong covariance term (P in [-8, 0]) bends the density away from a Gaussian.
  for (auto norm : {McRbmNorm::sum, McRbmNorm::mean}) {
    const auto r = McRbm::random(2, 3, 2, 2, 1.0, norm, 251);
    const McRbm model(4.0 * r.P(), r.C(), 2.0 * r.W(), r.b_mean(), r.b_cov(), r.b_vis(), 1.0, norm);
    const double kappa = norm == McRbmNorm::sum ? 1.0 : 0.5;
    const double q =
        mcrbm_log_z_quadrature_2d(model.P(), model.C(), model.W(), model.b_mean(), model.b_cov(),
                                  model.b_vis(), 1.0, kappa, 14.0, 1400);
    ASSERT_NEAR(q,
                mcrbm_log_z_quadrature_2d(model.P(), model.C(), model.W(), model.b_mean(),
                                          model.b_cov(), model.b_vis(), 1.0, kappa, 14.0, 700),
                1e-6);
    const GeometricPath path(GaussianBase::isotropic(2, 1.5), model);
    expect_agrees(run_ais(path, hais(0.2), 1000, 200, 252), q, 0.05,
                  "HAIS mcRBM 2-d " + to_string(norm));
  }
}

}  // namespace
}  // namespace logz
