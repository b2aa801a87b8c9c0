// Pareto k-hat of importance weights: weights drawn with a known tail (w = U^-k, a Pareto
// tail of shape k) recover it, light-tailed (log-normal) weights stay below 1/2, log-weights
// of order 1e4 are handled, AIS flags heavy-tailed weights and the bounds heavy-tailed works.
#include "logz/math/pareto_tail.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "logz/estimators/bounds.hpp"
#include "logz/estimators/jarzynski.hpp"
#include "logz/random/philox.hpp"

namespace {

std::vector<double> pareto_log_weights(double k, std::size_t n, std::uint64_t seed) {
  std::vector<double> lw(n);
  for (std::size_t i = 0; i < n; ++i) {
    logz::RandomStream rng(seed, i, logz::Purpose::test, 0);
    lw[i] = -k * std::log(rng.uniform());  // log of U^-k
  }
  return lw;
}

TEST(ParetoTail, RecoversTheShapeOfAParetoTail) {
  // 4000 weights: the fit uses the 190 largest; the shape's standard error is about
  // (1 + k) / sqrt(190) < 0.15, so 5 SE would say little: the checks are the decisions the
  // diagnostic makes, each 2.5-4 SE from its threshold.
  for (double k : {0.2, 0.5, 1.2}) {
    const double k_hat = logz::pareto_k_hat(pareto_log_weights(k, 4000, 3));
    EXPECT_NEAR(k_hat, k, 0.3) << k;
  }
  EXPECT_LT(logz::pareto_k_hat(pareto_log_weights(0.2, 4000, 4)), 0.5);
  EXPECT_GT(logz::pareto_k_hat(pareto_log_weights(1.2, 4000, 5)), 0.7);
}

TEST(ParetoTail, LightTailsAndHugeLogWeights) {
  std::vector<double> lw(1000);
  for (std::size_t i = 0; i < lw.size(); ++i) {
    logz::RandomStream rng(6, i, logz::Purpose::test, 0);
    lw[i] = 1e4 + 0.3 * rng.normal();  // log-normal weights, sd 0.3: k near 0
  }
  const double k_hat = logz::pareto_k_hat(lw);
  ASSERT_TRUE(std::isfinite(k_hat));
  EXPECT_LT(k_hat, 0.5);
  EXPECT_TRUE(std::isnan(logz::pareto_k_hat(std::vector<double>(5, 1.0))));
  EXPECT_TRUE(std::isnan(logz::pareto_k_hat(std::vector<double>(100, 2.0))));  // no tail
  EXPECT_NEAR(logz::pareto_k_threshold(100), 0.5, 1e-12);
  EXPECT_NEAR(logz::pareto_k_threshold(1000000), 0.7, 1e-12);
}

TEST(ParetoTail, AisFlagsHeavyTailedWeights) {
  auto works = [](std::vector<double> lw) {
    for (double& x : lw) x = -x;
    return lw;
  };
  const auto heavy = logz::ais(works(pareto_log_weights(1.2, 1000, 7)));
  EXPECT_TRUE(heavy.diagnostics.has_flag("heavy_tailed_weights"));
  const auto light = logz::ais(works(pareto_log_weights(0.1, 1000, 8)));
  EXPECT_FALSE(light.diagnostics.has_flag("heavy_tailed_weights"));
}

// The bounds (means of works) flag works of a heavy right tail, W = U^-1.2 + 1e3 (no finite
// mean), whatever their shift, and not Gaussian works of any spread.
TEST(ParetoTail, BoundsFlagHeavyTailedWorks) {
  std::vector<double> heavy = pareto_log_weights(1.2, 1000, 9), gaussian(1000);
  for (double& w : heavy) w = std::exp(w) + 1e3;
  for (std::size_t i = 0; i < gaussian.size(); ++i) {
    logz::RandomStream rng(10, i, logz::Purpose::test, 0);
    gaussian[i] = 50.0 + 20.0 * rng.normal();
  }
  EXPECT_TRUE(logz::upper_bound(heavy).diagnostics.has_flag("heavy_tailed_works"));
  EXPECT_TRUE(logz::lower_bound(heavy).diagnostics.has_flag("heavy_tailed_works"));
  EXPECT_FALSE(logz::upper_bound(gaussian).diagnostics.has_flag("heavy_tailed_works"));
  EXPECT_FALSE(logz::lower_bound(gaussian).diagnostics.has_flag("heavy_tailed_works"));
}

}  // namespace
