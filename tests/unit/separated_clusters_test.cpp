// Clusters of weighted points split only where they are separated (math/separated_clusters.hpp),
// and the mixture base fitted to them (smc/fitted_base.hpp).
#include "logz/math/separated_clusters.hpp"

#include <gtest/gtest.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "logz/models/gaussian_base.hpp"
#include "logz/models/gaussian_mixture.hpp"
#include "logz/random/philox.hpp"
#include "logz/smc/fitted_base.hpp"

namespace separated_clusters_test {

using Eigen::MatrixXd;
using Eigen::VectorXd;

// Three modes in 20-D, masses 0.7, 0.29, 0.01, sd 0.3, at 4 e_0, -4 e_0 and 4 e_1.
logz::GaussianMixture three_modes() {
  const int d = 20;
  std::vector<VectorXd> means(3, VectorXd::Zero(d));
  means[0](0) = 4.0, means[1](0) = -4.0, means[2](1) = 4.0;
  return logz::GaussianMixture({0.7, 0.29, 0.01}, means,
                               std::vector<MatrixXd>(3, 0.09 * MatrixXd::Identity(d, d)));
}

MatrixXd draws(const logz::GaussianMixture& m, int n, std::uint64_t seed) {
  MatrixXd X(m.dim(), n);
  m.sample(X, logz::BatchRandom{.seed = seed});
  return X;
}

// The index of the nearest mean of each column.
std::vector<int> nearest_mean(const logz::GaussianMixture& m, const MatrixXd& X) {
  std::vector<int> out;
  for (Eigen::Index i = 0; i < X.cols(); ++i) {
    int best = 0;
    for (int j = 1; j < m.num_components(); ++j)
      if ((X.col(i) - m.means()[j]).norm() < (X.col(i) - m.means()[best]).norm()) best = j;
    out.push_back(best);
  }
  return out;
}

TEST(SeparatedClusters, FindsThreeModesOfUnequalMassAsTheyWereDrawn) {
  const logz::GaussianMixture m = three_modes();
  const MatrixXd X = draws(m, 2000, 7);
  const std::vector<int> labels = logz::separated_clusters(X, VectorXd::Ones(X.cols())).labels;
  const std::vector<int> truth = nearest_mean(m, X);
  // One label per mode, the same for all its points (a permutation of the modes).
  std::map<int, int> to_label;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const auto [it, inserted] = to_label.emplace(truth[i], labels[i]);
    EXPECT_EQ(it->second, labels[i]) << "point " << i;
  }
  EXPECT_EQ(to_label.size(), 3u);
  EXPECT_EQ(*std::max_element(labels.begin(), labels.end()), 2);
}

TEST(SeparatedClusters, LeavesOneGaussianAndARingWhole) {
  const logz::GaussianBase g = logz::GaussianBase::isotropic(10, 1.5);
  MatrixXd X(10, 1000);
  g.sample(X, logz::BatchRandom{.seed = 3});
  std::vector<int> labels = logz::separated_clusters(X, VectorXd::Ones(X.cols())).labels;
  EXPECT_EQ(*std::max_element(labels.begin(), labels.end()), 0);
  // A ring of radius 2 and width 0.05 in the plane: its arcs touch.
  MatrixXd ring(2, 1000);
  for (int i = 0; i < 1000; ++i) {
    const double a = 2.0 * M_PI * (i + 0.5) / 1000.0, r = 2.0 + 0.05 * std::sin(37.0 * i);
    ring.col(i) << r * std::cos(a), r * std::sin(a);
  }
  labels = logz::separated_clusters(ring, VectorXd::Ones(ring.cols())).labels;
  EXPECT_EQ(*std::max_element(labels.begin(), labels.end()), 0);
}

TEST(SeparatedClusters, WeightsOfZeroNeitherMoveMeansNorMakeClusters) {
  // Two modes, and five points of weight 0 far from both: still two clusters.
  MatrixXd X(2, 45);
  VectorXd w = VectorXd::Ones(45);
  for (int i = 0; i < 20; ++i) X.col(i) << -5.0 + 0.01 * (i % 5), 0.01 * (i / 5);
  for (int i = 20; i < 40; ++i) X.col(i) << 5.0 + 0.01 * (i % 5), 0.01 * (i / 5);
  for (int i = 40; i < 45; ++i) {
    X.col(i) << 0.0, 50.0 + i;
    w(i) = 0.0;
  }
  const logz::SeparatedClusters c = logz::separated_clusters(X, w);
  const std::vector<int>& labels = c.labels;
  EXPECT_EQ(*std::max_element(labels.begin(), labels.end()), 1);
  EXPECT_NE(labels[0], labels[20]);
  // Each cluster's weight and weighted mean, the far points of weight 0 in neither.
  ASSERT_EQ(c.size(), 2);
  const int left = labels[0], right = labels[20];
  EXPECT_DOUBLE_EQ(c.weights(left), 20.0);
  EXPECT_DOUBLE_EQ(c.weights(right), 20.0);
  EXPECT_NEAR((c.means.col(left) - Eigen::Vector2d(-4.98, 0.015)).norm(), 0.0, 1e-12);
  EXPECT_NEAR((c.means.col(right) - Eigen::Vector2d(5.02, 0.055)).norm(), 0.0, 1e-12);
}

// The clusters do not depend on the origin (the nearest centres come from products c.x, taken
// about the points' mean), nor on Lloyd's iterations being run until no point moves: the
// default stops once fewer than 1% move, and separated modes have settled by then.
TEST(SeparatedClusters, FarFromTheOriginAndWithoutTheLastIterationsTheModesAreTheSame) {
  const logz::GaussianMixture m = three_modes();
  const MatrixXd X = draws(m, 2000, 7);
  const VectorXd w = VectorXd::Ones(X.cols());
  const logz::SeparatedClusters near = logz::separated_clusters(X, w);
  ASSERT_EQ(near.size(), 3);
  const MatrixXd far = X.array() + 1e9;  // |c|^2 about the origin: 2e19, its rounding 2e3
  const logz::SeparatedClusters moved = logz::separated_clusters(far, w);
  EXPECT_EQ(moved.labels, near.labels);
  EXPECT_NEAR((moved.means.array() - 1e9 - near.means.array()).abs().maxCoeff(), 0.0, 1e-6);
  logz::SeparatedClustersOptions exact;
  exact.settled_fraction = 0.0;
  EXPECT_EQ(logz::separated_clusters(X, w, exact).labels, near.labels);
}

TEST(FittedBase, MixtureOverSeparatedModesHasTheirMeansAndFlooredMasses) {
  const logz::GaussianMixture m = three_modes();
  logz::SmcResult run;
  run.particles = draws(m, 2000, 11);
  run.log_weights.assign(2000, -std::log(2000.0));
  const auto base = logz::fit_gaussian_mixture_base(run, 1.2, 0.02);
  ASSERT_TRUE(base.has_value());
  ASSERT_EQ(base->num_components(), 3);
  EXPECT_NEAR(base->log_z(), 0.0, 1e-12);
  std::vector<int> truth = nearest_mean(m, run.particles);
  std::vector<double> share(3, 0.0);
  for (const int t : truth) share[static_cast<std::size_t>(t)] += 1.0 / 2000.0;
  for (int j = 0; j < 3; ++j) {
    int k = 0;  // the fitted component nearest true mean j
    for (int l = 1; l < 3; ++l)
      if ((base->means()[l] - m.means()[j]).norm() < (base->means()[k] - m.means()[j]).norm())
        k = l;
    EXPECT_LT((base->means()[k] - m.means()[j]).norm(), 0.5) << "mode " << j;
    // The 1% mode is raised to 0.02 before the masses are normalised.
    const double raised = std::max(share[j], 0.02);
    double total = 0.0;
    for (const double s : share) total += std::max(s, 0.02);
    EXPECT_NEAR(base->weights()[k], raised / total, 1e-12) << "mode " << j;
    // One covariance about the modes' own means, widened: 0.09 x 1.44 per coordinate.
    EXPECT_NEAR(base->covariances()[k](0, 0), 0.09 * 1.44, 0.02);
  }
  // One Gaussian: no mixture.
  const logz::GaussianBase g = logz::GaussianBase::isotropic(5, 1.0);
  run.particles.resize(5, 2000);
  g.sample(run.particles, logz::BatchRandom{.seed = 5});
  EXPECT_FALSE(logz::fit_gaussian_mixture_base(run, 1.2).has_value());
}

}  // namespace separated_clusters_test
