// A Gaussian mixture fitted by EM to weighted points, its size by BIC
// (math/gaussian_mixture_em.hpp), and the refining run's base made from it (smc/fitted_base.hpp).
#include "logz/math/gaussian_mixture_em.hpp"

#include <gtest/gtest.h>

#include <Eigen/Core>
#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/models/gaussian_mixture.hpp"
#include "logz/models/gaussian_mixture_in_box.hpp"
#include "logz/random/philox.hpp"
#include "logz/smc/fitted_base.hpp"

namespace gaussian_mixture_em_test {

using Eigen::MatrixXd;
using Eigen::VectorXd;

MatrixXd draws(const logz::GaussianMixture& m, int n, std::uint64_t seed) {
  MatrixXd X(m.dim(), n);
  m.sample(X, logz::BatchRandom{.seed = seed});
  return X;
}

// Masses 0.3 and 0.7, means 3 apart along the first axis, unlike covariances: overlapping
// enough that no clustering by distance alone separates them.
logz::GaussianMixture two_components() {
  MatrixXd c0(2, 2), c1(2, 2);
  c0 << 1.0, 0.5, 0.5, 1.0;
  c1 << 0.5, 0.0, 0.0, 2.0;
  return logz::GaussianMixture({0.3, 0.7}, {VectorXd::Zero(2), VectorXd::Unit(2, 0) * 3.0},
                               {c0, c1});
}

// n points on a ring of radius 2 about the origin, radial sd 0.1 (a shape no Gaussian fits).
MatrixXd ring(int n, std::uint64_t seed) {
  MatrixXd X(2, n);
  logz::RandomStream s = logz::BatchRandom{.seed = seed}.stream(0);
  for (int i = 0; i < n; ++i) {
    const double a = 2.0 * std::numbers::pi * s.uniform(), r = 2.0 + 0.1 * s.normal();
    X.col(i) << r * std::cos(a), r * std::sin(a);
  }
  return X;
}

TEST(GaussianMixtureEm, RecoversTwoOverlappingComponentsFromTheirDraws) {
  const logz::GaussianMixture m = two_components();
  const int n = 4000;
  const logz::GaussianMixtureFit f =
      logz::fit_gaussian_mixture_em(draws(m, n, 3), VectorXd::Ones(n), 2);
  ASSERT_EQ(f.size(), 2);
  const int big = f.weights[1] > f.weights[0] ? 1 : 0, small = 1 - big;
  // A mass's standard error from n draws is about sqrt(0.21 / n) = 0.007 (more for a fitted
  // mixture whose components overlap): 5 SE and the same again for the fit.
  EXPECT_NEAR(f.weights[small], 0.3, 0.07);
  EXPECT_NEAR((f.means[small] - m.means()[0]).norm(), 0.0, 0.2);
  EXPECT_NEAR((f.means[big] - m.means()[1]).norm(), 0.0, 0.15);
  EXPECT_NEAR((f.covariances[big] - m.covariances()[1]).norm(), 0.0, 0.3);
  EXPECT_NEAR((f.covariances[small] - m.covariances()[0]).norm(), 0.0, 0.4);
}

TEST(GaussianMixtureEm, ChoosesOneComponentForGaussianPointsAndItIsTheirMoments) {
  const int d = 3, n = 2000;
  MatrixXd cov = MatrixXd::Identity(d, d);
  cov(0, 1) = cov(1, 0) = 0.8;
  cov(2, 2) = 1e6;  // units far apart: the fit works in whitened coordinates
  const logz::GaussianMixture g({1.0}, {VectorXd::Constant(d, 5.0)}, {cov});
  const MatrixXd X = draws(g, n, 11);
  const logz::GaussianMixtureFit f = logz::fit_gaussian_mixture_bic(X, VectorXd::Ones(n), n / 2.0);
  ASSERT_EQ(f.size(), 1);
  const VectorXd mean = X.rowwise().mean();
  const MatrixXd centred = X.colwise() - mean;
  const MatrixXd moments = centred * centred.transpose() / n;
  EXPECT_LT((f.means[0] - mean).norm(), 1e-9 * mean.norm());
  // The variance floor, 1e-4 of each whitened variance, is all that separates them.
  EXPECT_LT((f.covariances[0] - moments).norm(), 2e-4 * moments.norm());
}

TEST(GaussianMixtureEm, ARingTakesSeveralComponentsThatFitItBetterThanOne) {
  const MatrixXd X = ring(1000, 5);
  const VectorXd w = VectorXd::Ones(X.cols());
  const logz::GaussianMixtureFit one = logz::fit_gaussian_mixture_em(X, w, 1);
  const logz::GaussianMixtureFit best = logz::fit_gaussian_mixture_bic(X, w, 500.0);
  EXPECT_GE(best.size(), 4);
  EXPECT_GT(best.mean_log_density, one.mean_log_density + 0.5);
  double total = 0.0;
  for (double m : best.weights) total += m;
  EXPECT_NEAR(total, 1.0, 1e-12);
  // Few points carry few components: 100 points (50 counted) allow one of 6 parameters at most
  // 10 points each, so none beyond the first.
  EXPECT_EQ(logz::fit_gaussian_mixture_bic(X.leftCols(100), w.head(100), 50.0).size(), 1);
}

TEST(GaussianMixtureEm, AWeightOfTwoIsAPointTwiceAndTheUnitsDoNotMatter) {
  const MatrixXd X = ring(300, 9);
  VectorXd w = VectorXd::Ones(300);
  w.head(100).setConstant(2.0);
  MatrixXd twice(2, 400);
  twice << X, X.leftCols(100);
  const logz::GaussianMixtureFit a = logz::fit_gaussian_mixture_em(X, w, 3);
  const logz::GaussianMixtureFit b = logz::fit_gaussian_mixture_em(twice, VectorXd::Ones(400), 3);
  ASSERT_EQ(a.size(), b.size());
  for (int j = 0; j < a.size(); ++j) EXPECT_NEAR(a.weights[j], b.weights[j], 1e-6);
  // Coordinate 0 in other units: the same masses, the means scaled.
  MatrixXd scaled = X;
  scaled.row(0) *= 1000.0;
  const logz::GaussianMixtureFit c = logz::fit_gaussian_mixture_em(scaled, w, 3);
  ASSERT_EQ(c.size(), a.size());
  for (int j = 0; j < a.size(); ++j) {
    EXPECT_NEAR(c.weights[j], a.weights[j], 1e-6);
    EXPECT_NEAR(c.means[j](0), 1000.0 * a.means[j](0), 1e-5 * 1000.0);
    EXPECT_NEAR(c.means[j](1), a.means[j](1), 1e-5);
  }
}

TEST(GaussianMixtureEm, BadInputIsAnInvalidArgument) {
  const MatrixXd X = ring(50, 1);
  const VectorXd w = VectorXd::Ones(50);
  EXPECT_THROW(logz::fit_gaussian_mixture_em(X, w, 0), logz::InvalidArgument);
  EXPECT_THROW(logz::fit_gaussian_mixture_em(X, VectorXd::Ones(49), 2), logz::InvalidArgument);
  EXPECT_THROW(logz::fit_gaussian_mixture_em(X, -w, 2), logz::InvalidArgument);
  MatrixXd bad = X;
  bad(0, 3) = std::nan("");
  EXPECT_THROW(logz::fit_gaussian_mixture_em(bad, w, 2), logz::InvalidArgument);
  EXPECT_THROW(logz::fit_gaussian_mixture_bic(X, w, 0.5), logz::InvalidArgument);
}

// The refining run's base: a mixture for particles on a ring, none for Gaussian ones.
TEST(ShapeMixtureBase, IsAMixtureOfMassOneForARingAndNoneForAGaussianCloud) {
  logz::SmcResult run;
  run.particles = ring(1000, 2);
  run.log_weights.assign(1000, -std::log(1000.0));
  const auto base = logz::fit_shape_mixture_base(run, 1.2, logz::ShapeTails::bounded);
  ASSERT_TRUE(base.has_value());
  EXPECT_GE(base->num_components(), 4);
  EXPECT_NEAR(base->log_z(), 0.0, 1e-12);
  // With tails to defend, the particles' one Gaussian is a component too, of mass 0.2.
  const auto defended = logz::fit_shape_mixture_base(run, 1.2, logz::ShapeTails::defended);
  ASSERT_TRUE(defended.has_value());
  EXPECT_EQ(defended->num_components(), base->num_components() + 1);
  EXPECT_NEAR(defended->weights().back(), 0.2, 1e-12);
  EXPECT_NEAR(defended->log_z(), 0.0, 1e-12);
  const logz::GaussianMixture g({1.0}, {VectorXd::Zero(2)}, {MatrixXd::Identity(2, 2)});
  run.particles = draws(g, 1000, 4);
  EXPECT_FALSE(logz::fit_shape_mixture_base(run, 1.2, logz::ShapeTails::bounded).has_value());
  // Above three dimensions none: the ring with two more coordinates.
  MatrixXd wide(4, 1000);
  wide << ring(1000, 2), 0.1 * draws(g, 1000, 6);
  run.particles = wide;
  EXPECT_FALSE(logz::fit_shape_mixture_base(run, 1.2, logz::ShapeTails::bounded).has_value());
}

// The mixture conditioned on a box: its log Z is the log of its mass inside, estimated within
// its stated error; its draws are inside; outside, its energy is +inf.
TEST(GaussianMixtureInBox, ItsLogZIsTheMassInsideWithinItsErrorAndItsDrawsAreInside) {
  // Diagonal components: the mass inside [-1, 2] x [-1, 1] is a product of normal CDFs.
  const std::vector<double> w = {0.4, 0.6};
  const std::vector<VectorXd> means = {VectorXd::Zero(2), VectorXd::Constant(2, 1.0)};
  const std::vector<VectorXd> sds = {VectorXd::Constant(2, 0.5),
                                     (VectorXd(2) << 0.3, 0.8).finished()};
  std::vector<MatrixXd> covs;
  for (const VectorXd& s : sds) covs.emplace_back(s.array().square().matrix().asDiagonal());
  const VectorXd low = (VectorXd(2) << -1.0, -1.0).finished(),
                 high = (VectorXd(2) << 2.0, 1.0).finished();
  const auto cdf = [](double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); };
  double inside = 0.0;
  for (int j = 0; j < 2; ++j) {
    double p = w[j];
    for (int i = 0; i < 2; ++i)
      p *= cdf((high(i) - means[j](i)) / sds[j](i)) - cdf((low(i) - means[j](i)) / sds[j](i));
    inside += p;
  }
  const auto box = logz::GaussianMixtureInBox::measured(logz::GaussianMixture(w, means, covs), low,
                                                        high, logz::BatchRandom{.seed = 8});
  ASSERT_TRUE(box.has_value());
  EXPECT_GT(box->log_z_std_error(), 0.0);
  EXPECT_LT(std::abs(box->log_z() - std::log(inside)), 5.0 * box->log_z_std_error());
  MatrixXd X(2, 2000);
  box->sample(X, logz::BatchRandom{.seed = 9});
  for (Eigen::Index p = 0; p < X.cols(); ++p) {
    EXPECT_TRUE((X.col(p).array() >= low.array()).all() &&
                (X.col(p).array() <= high.array()).all());
  }
  MatrixXd two(2, 2);
  two << 0.5, 3.0, 0.5, 0.0;  // inside, outside
  VectorXd e, e_mixture;
  box->energy(two, e);
  logz::GaussianMixture(w, means, covs).energy(two, e_mixture);
  EXPECT_DOUBLE_EQ(e(0), e_mixture(0));
  EXPECT_EQ(e(1), std::numeric_limits<double>::infinity());
  // Mostly outside: no such base.
  EXPECT_FALSE(logz::GaussianMixtureInBox::measured(
                   logz::GaussianMixture(w, means, covs), VectorXd::Constant(2, 1.9),
                   VectorXd::Constant(2, 5.0), logz::BatchRandom{.seed = 8})
                   .has_value());
}

}  // namespace gaussian_mixture_em_test
