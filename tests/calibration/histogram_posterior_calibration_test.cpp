// Calibration of the histogram estimator's Gibbs posterior: over 400 independent data sets of
// Crooks-consistent Gaussian works (forward N(mu, s^2), reverse N(s^2 - mu, s^2), log Z =
// s^2/2 - mu), the posterior's 95% credible interval must contain the true log Z in a fraction
// of data sets within the binomial 5-sigma band around 0.95 (0.95 +- 0.055 for 400 data sets;
// false-failure rate about 1e-6 when the intervals are honest). Sized for CI: 100 works a side
// and 1000 kept sweeps per data set, about 10 s on one core.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "logz/estimators/histogram.hpp"
#include "logz/random/philox.hpp"
#include "support/gaussian_draws.hpp"

namespace {

using logz::test_support::gaussian_draws;

double value(const logz::Estimate& est, const std::string& name) {
  for (const auto& [key, v] : est.diagnostics.values)
    if (key == name) return v;
  ADD_FAILURE() << est.method << " has no value " << name;
  return std::nan("");
}

TEST(HistogramPosteriorCalibration, NinetyFivePercentIntervalsCoverTheTruth) {
  constexpr int kDataSets = 400;
  constexpr std::size_t kWorks = 100;
  const double mu = 5.0, s = 1.5, truth = 0.5 * s * s - mu;
  logz::HistogramPosteriorOptions opt;
  opt.num_draws = 1000;
  opt.burn_in = 100;
  int covered = 0;
  double sum_z = 0.0, sum_z2 = 0.0;
  for (int k = 0; k < kDataSets; ++k) {
    const std::uint64_t seed = 90000 + static_cast<std::uint64_t>(k);
    const auto wf = gaussian_draws(mu, s, kWorks, seed, 0);
    const auto wr = gaussian_draws(s * s - mu, s, kWorks, seed, 1);
    opt.seed = seed;
    const auto post = logz::histogram_posterior(wf, wr, opt);
    const double lo = value(post.estimate, "ci95_low"), hi = value(post.estimate, "ci95_high");
    ASSERT_TRUE(lo < hi) << "data set " << k;
    covered += lo <= truth && truth <= hi;
    const double z = (post.estimate.log_z - truth) / post.estimate.std_error;
    sum_z += z;
    sum_z2 += z * z;
  }
  const double coverage = static_cast<double>(covered) / kDataSets;
  const double band = 5.0 * std::sqrt(0.95 * 0.05 / kDataSets);
  const double mean_z = sum_z / kDataSets, sd_z = std::sqrt(sum_z2 / kDataSets - mean_z * mean_z);
  std::printf("coverage %.4f (band 0.95 +- %.4f), mean z %.3f, sd z %.3f\n", coverage, band, mean_z,
              sd_z);
  EXPECT_NEAR(coverage, 0.95, band);
  // z = (posterior mean - truth) / posterior sd: mean 0 +- 5/sqrt(400), sd 1 within 20%.
  EXPECT_NEAR(mean_z, 0.0, 5.0 / std::sqrt(double(kDataSets)));
  EXPECT_NEAR(sd_z, 1.0, 0.2);
}

}  // namespace
